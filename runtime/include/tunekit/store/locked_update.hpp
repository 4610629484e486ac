// The read-merge-replace cycle every tunekit file writer goes through (the
// calibration cache, engine-override files): lock, re-read, let the format
// merge, move an unreadable file aside, replace atomically. A format supplies
// only its merge step: parse what is there, merge, serialise.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"

namespace tunekit::store {

// How long a writer waits for another writer of the same file. Writes under
// the lock take milliseconds; ten seconds only runs out when a holder is stuck.
inline constexpr std::chrono::milliseconds kWriterLockTimeout{10000};

// What a format's merge step decided after reading the current file.
struct UpdatePlan {
  std::string contents;  // the complete new file
  // The current file could not be fully read: keep its bytes by moving it to
  // `<file>.corrupt-<unix-seconds>` (store::move_aside_corrupt) before the
  // new contents replace it.
  bool move_aside = false;
  // When that move fails: false fails the update (nothing written); true
  // overwrites the unreadable file (the fresh results take priority).
  bool overwrite_if_move_fails = false;
};

// The current contents (nullopt: the file does not exist yet) to the plan,
// or an error that ends the update with nothing written (a refusal, a newer
// format version).
using MergeStep = std::function<Result<UpdatePlan>(const std::optional<std::string>& current)>;

struct LockedUpdateOptions {
  std::chrono::milliseconds lock_timeout = kWriterLockTimeout;
  // Starts every line the update logs, so that a writer running inside an
  // autotune or a calibration logs in its caller's category ("autotune:").
  std::string log_prefix = "store:";
  // Seconds used in the corrupt copy's name; now when unset.
  std::optional<std::int64_t> unix_seconds;
  // Test hook passed to write_file_atomically: runs just before the rename.
  std::function<void()> before_rename;
  // Test hook replacing move_aside_corrupt.
  std::function<Result<std::filesystem::path>(const std::filesystem::path&, std::int64_t)> move_aside;
};

struct LockedUpdateOutcome {
  enum class Status {
    WRITTEN,    // the file was replaced (or created)
    UNCHANGED,  // the plan equals the current bytes and nothing was to be moved aside: not written
  };
  Status status = Status::WRITTEN;
  std::optional<std::filesystem::path> moved_aside;  // where the unreadable file went
  Error move_aside_error;                            // why it could not be moved (then overwritten)
  // Hidden temporary files of the target (`.<name>.tmp-XXXXXX`) left by a
  // writer that died between creating and renaming one, removed under the lock.
  std::vector<std::filesystem::path> removed_temporaries;
};

// Replaces `target` with what `merge` makes of its current contents. Steps:
// create missing parent folders; take the exclusive FileLock on
// `<target>.lock`, waiting up to options.lock_timeout; remove stale
// temporary files of the target (under the lock no live writer of it owns
// one); read the file; call `merge` once; move the current file aside when
// the plan asks; write_file_atomically; unlock.
//
// Errors, each naming the target, end the update with nothing written:
// IO_ERROR for the folder ("cannot create folder F for T: reason"), the lock
// file, the read, the move-aside (unless the plan overwrites) and the write,
// with the step and the system's reason; BAD_STATE "cannot update T: timed
// out after N ms waiting for lock T.lock" when another writer holds the
// lock; the merge step's own error unchanged. A write that fails after a
// successful move-aside leaves no file at the target and its bytes in the
// moved copy.
//
// A crash leaves the old or the new contents (plus possibly a moved-aside
// copy or a temporary file that the next update removes), never a mixture.
Result<LockedUpdateOutcome> update_file_locked(const std::filesystem::path& target, const MergeStep& merge,
                                               const LockedUpdateOptions& options = {});

}  // namespace tunekit::store
