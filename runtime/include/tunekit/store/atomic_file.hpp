// Whole-file replacement that readers and crashes see as all-or-nothing: the
// new contents go to a temporary file in the target's folder, which is synced
// and renamed over the target. Plus the plain readers the writers pair with.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"

namespace tunekit::store {

struct AtomicWriteOptions {
  // Create missing parent folders (like `mkdir -p`) instead of failing.
  bool create_parent_folders = false;
  // Test hook: runs after the temporary file is complete and synced, just
  // before the rename, so a test can kill the process at the worst moment.
  std::function<void()> before_rename;
};

// Replaces `target` with `contents`. Steps: create a unique hidden temporary
// file `.<name>.tmp-XXXXXX` beside the target, write everything, fsync, rename
// over the target, fsync the folder.
//
// Permissions: an existing target keeps its mode (and, where the process may
// change it, its owner); a new file gets 0644 minus the umask.
//
// Failure: IO_ERROR naming the target, the step (create folder, create,
// chmod, write, fsync, close, rename, fsync folder) and the system's reason.
// Up to and including the rename the temporary file is removed and the
// target is untouched. A failure of the final folder fsync means the new
// contents are in place but may not survive a power loss.
//
// A crash leaves the target holding either the old or the new contents; a
// crash before the rename can also leave the hidden temporary file behind,
// which nothing reads and which may be deleted.
//
// Concurrent writers do not corrupt the file, but the last rename wins:
// read-modify-write callers hold a FileLock around the whole cycle.
Error write_file_atomically(const std::filesystem::path& target, std::string_view contents,
                            const AtomicWriteOptions& options = {});

// Whether `file_name` (a name in the target's folder, without the folder) is
// one of the hidden temporary files write_file_atomically creates for
// `target`: `.<name>.tmp-` and six characters of [a-z0-9], where <name> is
// the target's file name cut to 200 bytes.
bool is_temporary_file_of(const std::filesystem::path& target, std::string_view file_name);

// The whole file as bytes. IO_ERROR naming the path when it cannot be opened
// or read, including when it does not exist.
Result<std::string> read_file(const std::filesystem::path& path);

// As read_file, but a file that does not exist (ENOENT) is std::nullopt
// rather than an error, so writers can tell "first write" from "unreadable".
Result<std::optional<std::string>> read_file_if_exists(const std::filesystem::path& path);

}  // namespace tunekit::store
