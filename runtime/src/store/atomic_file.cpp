// Atomic replacement with POSIX calls (temporary file, fsync, rename, folder
// fsync) and whole-file reads. Every system-call failure becomes an IO_ERROR
// carrying the path, the step and strerror; nothing here throws.
#include "tunekit/store/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <system_error>

#include <fmt/core.h>

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;

std::string reason(int error_number) { return std::generic_category().message(error_number); }

// The folder that holds `target`; "." for a bare file name.
fs::path folder_of(const fs::path& target) {
  fs::path folder = target.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

constexpr std::size_t kSuffixLength = 6;
constexpr std::string_view kSuffixAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

// Six characters that differ between processes (pid), threads and calls
// (counter) and runs (clock); a collision only costs another O_EXCL attempt.
std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t x = static_cast<std::uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ULL;
  x ^= counter.fetch_add(1, std::memory_order_relaxed) * 0xBF58476D1CE4E5B9ULL;
  x ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  x = (x ^ (x >> 31)) * 0x94D049BB133111EBULL;
  x ^= x >> 29;
  std::string suffix(kSuffixLength, 'a');
  for (char& c : suffix) {
    c = kSuffixAlphabet[x % kSuffixAlphabet.size()];
    x /= kSuffixAlphabet.size();
  }
  return suffix;
}

// Hidden and derived from the target so a leftover is recognisable; the name
// part is shortened so that the result stays under NAME_MAX.
std::string temporary_prefix_for(const fs::path& target) {
  return '.' + target.filename().string().substr(0, 200) + ".tmp-";
}

fs::path temporary_path_for(const fs::path& target) {
  return folder_of(target) / (temporary_prefix_for(target) + unique_suffix());
}

class TemporaryFile {
 public:
  TemporaryFile() = default;
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  // Removes the file unless it was renamed away: the failure paths need no
  // clean-up of their own.
  ~TemporaryFile() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) ::unlink(path.c_str());
  }

  int fd = -1;
  fs::path path;
};

Error failure(const fs::path& target, std::string_view step, const fs::path& subject, int error_number) {
  return Error(ErrorCode::IO_ERROR, fmt::format("cannot write {}: {} {} failed: {}", target.string(), step,
                                                subject.string(), reason(error_number)));
}

Error create_temporary(const fs::path& target, TemporaryFile& temporary) {
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    fs::path candidate = temporary_path_for(target);
    // 0644 through open() lets the umask apply, which mkstemp's 0600 would not.
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      temporary.fd = fd;
      temporary.path = std::move(candidate);
      return Error::ok();
    }
    if (errno != EEXIST) return failure(target, "create", candidate, errno);
  }
  return failure(target, "create", temporary_path_for(target), EEXIST);
}

// The replacement inherits what a user set on the old file: a private cache
// stays private, and a file edited by root for a user stays the user's.
Error copy_attributes(const fs::path& target, const TemporaryFile& temporary) {
  struct stat existing {};
  if (::stat(target.c_str(), &existing) != 0 || !S_ISREG(existing.st_mode)) return Error::ok();
  if (::fchmod(temporary.fd, existing.st_mode & 07777) != 0) {
    return failure(target, "chmod", temporary.path, errno);
  }
  struct stat created {};
  if (::fstat(temporary.fd, &created) == 0 &&
      (created.st_uid != existing.st_uid || created.st_gid != existing.st_gid)) {
    // Only a privileged process may do this; others keep their own ownership.
    (void)::fchown(temporary.fd, existing.st_uid, existing.st_gid);
    if (::fchmod(temporary.fd, existing.st_mode & 07777) != 0) {  // chown may clear set-id bits
      return failure(target, "chmod", temporary.path, errno);
    }
  }
  return Error::ok();
}

Error write_all(const fs::path& target, const TemporaryFile& temporary, std::string_view contents) {
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    ssize_t written = ::write(temporary.fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return failure(target, "write", temporary.path, errno);
    }
    if (written == 0) return failure(target, "write", temporary.path, EIO);
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  return Error::ok();
}

Error sync_folder(const fs::path& target) {
  const fs::path folder = folder_of(target);
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return failure(target, "fsync folder", folder, errno);
  int result = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  // EINVAL: the file system cannot sync folders; the rename is all it offers.
  if (result != 0 && saved != EINVAL) return failure(target, "fsync folder", folder, saved);
  return Error::ok();
}

// Reads an open descriptor to the end.
Error read_all(int fd, const fs::path& path, std::string& out) {
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) out.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[65536];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error(ErrorCode::IO_ERROR, fmt::format("cannot read {}: {}", path.string(), reason(errno)));
    }
    if (got == 0) return Error::ok();
    out.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

Error write_file_atomically(const fs::path& target, std::string_view contents,
                            const AtomicWriteOptions& options) {
  if (target.empty() || !target.has_filename()) {
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot write '{}': not a file path", target.string()));
  }
  if (options.create_parent_folders) {
    std::error_code ec;
    fs::create_directories(folder_of(target), ec);
    if (ec) return failure(target, "create folder", folder_of(target), ec.value());
  }

  TemporaryFile temporary;
  TUNEKIT_RETURN_IF_ERROR(create_temporary(target, temporary));
  TUNEKIT_RETURN_IF_ERROR(copy_attributes(target, temporary));
  TUNEKIT_RETURN_IF_ERROR(write_all(target, temporary, contents));
  while (::fsync(temporary.fd) != 0) {
    if (errno != EINTR) return failure(target, "fsync", temporary.path, errno);
  }
  int fd = temporary.fd;
  temporary.fd = -1;
  if (::close(fd) != 0) return failure(target, "close", temporary.path, errno);

  if (options.before_rename) options.before_rename();

  if (::rename(temporary.path.c_str(), target.c_str()) != 0) {
    return failure(target, "rename", temporary.path, errno);
  }
  temporary.path.clear();  // now the target: nothing left to remove
  return sync_folder(target);
}

bool is_temporary_file_of(const fs::path& target, std::string_view file_name) {
  const std::string prefix = temporary_prefix_for(target);
  if (file_name.size() != prefix.size() + kSuffixLength || file_name.substr(0, prefix.size()) != prefix) return false;
  return file_name.substr(prefix.size()).find_first_not_of(kSuffixAlphabet) == std::string_view::npos;
}

Result<std::optional<std::string>> read_file_if_exists(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>{};
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot open {}: {}", path.string(), reason(errno)));
  }
  std::string contents;
  Error error = read_all(fd, path, contents);
  ::close(fd);
  if (error.is_bad()) return error;
  return std::optional<std::string>(std::move(contents));
}

Result<std::string> read_file(const fs::path& path) {
  auto contents = read_file_if_exists(path);
  if (!contents.ok()) return contents.error();
  if (!contents->has_value()) {
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot open {}: {}", path.string(), reason(ENOENT)));
  }
  return std::move(**contents);
}

}  // namespace tunekit::store
