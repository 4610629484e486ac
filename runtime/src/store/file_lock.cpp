// flock(2) on a sidecar lock file, polled with LOCK_NB so that waiting has
// a deadline; blocking flock cannot time out without signals.
#include "tunekit/store/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/core.h>

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Error io_failure(std::string_view step, const fs::path& lock_path, int error_number) {
  return Error(ErrorCode::IO_ERROR, fmt::format("cannot {} lock file {}: {}", step, lock_path.string(),
                                                std::generic_category().message(error_number)));
}

// Readers may lack write permission on the folder's lock file; flock works on
// a read-only descriptor, so they fall back to one.
int open_lock_file(const fs::path& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    int saved = errno;
    fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) errno = saved;
  }
  return fd;
}

// True when `fd` is still the file at `lock_path`. Someone deleting or
// replacing the sidecar would otherwise let the next process lock a new
// inode while we hold the old one.
bool still_linked(int fd, const fs::path& lock_path) {
  struct stat held {};
  struct stat current {};
  if (::fstat(fd, &held) != 0 || ::stat(lock_path.c_str(), &current) != 0) return false;
  return held.st_dev == current.st_dev && held.st_ino == current.st_ino;
}

}  // namespace

Result<FileLock> FileLock::acquire(const fs::path& protected_file, std::chrono::milliseconds timeout,
                                   LockMode mode) {
  fs::path lock_path = protected_file;
  lock_path += ".lock";
  const int operation = (mode == LockMode::SHARED ? LOCK_SH : LOCK_EX) | LOCK_NB;
  const Clock::time_point deadline = Clock::now() + std::max(timeout, std::chrono::milliseconds(0));
  std::chrono::milliseconds back_off(1);
  constexpr std::chrono::milliseconds kLongestBackOff(25);

  int fd = -1;
  while (true) {
    if (fd < 0) {
      fd = open_lock_file(lock_path);
      if (fd < 0) return io_failure("open", lock_path, errno);
    }
    if (::flock(fd, operation) == 0) {
      if (still_linked(fd, lock_path)) return FileLock(fd, std::move(lock_path), mode);
      ::close(fd);  // the sidecar was replaced under us: lock the current one
      fd = -1;
    } else if (errno == EINTR) {
      continue;
    } else if (errno != EWOULDBLOCK) {
      int saved = errno;
      ::close(fd);
      return io_failure("lock", lock_path, saved);
    }
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      if (fd >= 0) ::close(fd);
      return Error(ErrorCode::BAD_STATE, fmt::format("timed out after {} ms waiting for lock {}",
                                                     timeout.count(), lock_path.string()));
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                std::chrono::milliseconds(1);
    std::this_thread::sleep_for(std::min(back_off, left));
    back_off = std::min(back_off * 2, kLongestBackOff);
  }
}

FileLock::FileLock(int fd, fs::path lock_path, LockMode mode) noexcept
    : fd_(fd), lock_path_(std::move(lock_path)), mode_(mode) {}

FileLock::FileLock(FileLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), lock_path_(std::move(other.lock_path_)), mode_(other.mode_) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    lock_path_ = std::move(other.lock_path_);
    mode_ = other.mode_;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Explicit unlock before close: a forked child may share the descriptor,
  // and the lock must end when its owner says so.
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace tunekit::store
