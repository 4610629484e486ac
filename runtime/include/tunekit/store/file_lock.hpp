// The inter-process lock that file writers hold around read-merge-replace:
// flock(2) on a sidecar `<file>.lock`, so that the protected file itself can
// be replaced by rename while the lock stays on one stable inode.
#pragma once

#include <chrono>
#include <filesystem>

#include "tunekit/core/result.hpp"

namespace tunekit::store {

enum class LockMode {
  SHARED,     // readers: any number at once, none while an EXCLUSIVE holder exists
  EXCLUSIVE,  // writers: alone
};

// A held lock; unlocks and closes the lock file when destroyed.
//
// The lock is advisory: it only excludes processes that also use FileLock
// (or flock on the same `.lock` file); it does not stop anyone from writing
// the protected file. It belongs to the open file description, not to the
// process, so two FileLocks in one process (or in two threads) on the same
// file exclude each other just as two processes do. A child forked while a
// FileLock is held shares that one lock, and the child's copy unlocks it for
// both when destroyed: such children leave by _exit or exec. The kernel drops
// the lock when its last holder dies, so a crash never leaves it stuck.
//
// The sidecar is created if missing (in an existing folder) and never
// deleted: deleting it would let two processes lock two different inodes.
class FileLock {
 public:
  // Locks `<protected_file>.lock`, retrying with a short back-off until
  // `timeout` has passed; a zero timeout tries once. A timeout is BAD_STATE
  // "timed out after N ms waiting for lock <protected_file>.lock"; failing
  // to open or lock the file is IO_ERROR naming it with the system's reason.
  static Result<FileLock> acquire(const std::filesystem::path& protected_file,
                                  std::chrono::milliseconds timeout,
                                  LockMode mode = LockMode::EXCLUSIVE);

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  // Unlocks now instead of at destruction; afterwards holds() is false.
  void release() noexcept;

  bool holds() const noexcept { return fd_ >= 0; }
  LockMode mode() const noexcept { return mode_; }
  const std::filesystem::path& lock_path() const noexcept { return lock_path_; }

 private:
  FileLock(int fd, std::filesystem::path lock_path, LockMode mode) noexcept;

  int fd_ = -1;
  std::filesystem::path lock_path_;
  LockMode mode_ = LockMode::EXCLUSIVE;
};

}  // namespace tunekit::store
