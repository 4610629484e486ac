// Moving a file that a writer cannot parse out of the way, so the data stays
// recoverable under `<file>.corrupt-<unix-seconds>` and the writer can start
// a fresh file in its place.
#pragma once

#include <cstdint>
#include <filesystem>

#include "tunekit/core/result.hpp"

namespace tunekit::store {

// Renames `file` to `<file>.corrupt-<unix_seconds>`, or, when that name is
// taken, to the first free `<file>.corrupt-<unix_seconds>.1`, `.2`, ... An
// earlier corrupt file is never overwritten, even by a concurrent mover: the
// move itself fails when the name exists (renameat2 RENAME_NOREPLACE, or
// link + unlink where the file system lacks it). Returns the new path.
// IO_ERROR naming the file when it does not exist or cannot be moved.
Result<std::filesystem::path> move_aside_corrupt(const std::filesystem::path& file,
                                                 std::int64_t unix_seconds);

// As above with the current time.
Result<std::filesystem::path> move_aside_corrupt(const std::filesystem::path& file);

}  // namespace tunekit::store
