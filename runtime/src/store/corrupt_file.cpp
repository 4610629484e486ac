// Move-aside of corrupt files with a no-replace rename, so that choosing a
// free name and taking it are one atomic step.
#include "tunekit/store/corrupt_file.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc >= 2.28)
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>

#include <fmt/core.h>


namespace tunekit::store {
namespace {

namespace fs = std::filesystem;

// More corrupt copies of one file in one second than this means something
// is looping; stop instead of filling the folder.
constexpr int kMaxSuffix = 1000;

// rename(from, to) that fails with EEXIST instead of replacing `to`.
int rename_no_replace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  // EINVAL/ENOSYS: file system or kernel without RENAME_NOREPLACE.
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (::link(from.c_str(), to.c_str()) != 0) return -1;
  if (::unlink(from.c_str()) != 0) {
    // The copy exists under the new name; the source could not be removed.
    int saved = errno;
    ::unlink(to.c_str());
    errno = saved;
    return -1;
  }
  return 0;
}

}  // namespace

Result<fs::path> move_aside_corrupt(const fs::path& file, std::int64_t unix_seconds) {
  fs::path base = file;
  base += ".corrupt-" + std::to_string(unix_seconds);
  for (int suffix = 0; suffix <= kMaxSuffix; ++suffix) {
    fs::path candidate = base;
    if (suffix > 0) candidate += '.' + std::to_string(suffix);
    // No log line here: the caller reports the move in its own category.
    if (rename_no_replace(file, candidate) == 0) return candidate;
    if (errno == EEXIST) continue;
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot move {} aside to {}: {}", file.string(),
                                                  candidate.string(),
                                                  std::generic_category().message(errno)));
  }
  return Error(ErrorCode::IO_ERROR,
               fmt::format("cannot move {} aside: {} to {}.{} all exist", file.string(), base.string(),
                           base.string(), kMaxSuffix));
}

Result<fs::path> move_aside_corrupt(const fs::path& file) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return move_aside_corrupt(file, std::chrono::duration_cast<std::chrono::seconds>(now).count());
}

}  // namespace tunekit::store
