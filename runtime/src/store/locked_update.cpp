// The locked update cycle on top of FileLock, move_aside_corrupt and
// write_file_atomically; the only place where their order is decided.
#include "tunekit/store/locked_update.hpp"

#include <unistd.h>

#include <chrono>
#include <system_error>

#include <fmt/core.h>

#include "tunekit/core/log.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/corrupt_file.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;

Error create_parent(const fs::path& target) {
  if (!target.has_parent_path()) return Error::ok();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot create folder {} for {}: {}", target.parent_path().string(),
                                                  target.string(), ec.message()));
  }
  return Error::ok();
}

// Temporary files of `target` exist outside a locked update only while a
// writer that holds the lock is between creating and renaming one; we hold
// the lock, so every one found is a dead writer's. Failing to list or remove
// them costs disk space, not correctness: logged, never an error.
std::vector<fs::path> remove_stale_temporaries(const fs::path& target, const std::string& log_prefix) {
  std::vector<fs::path> removed;
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& candidate = it->path();
    if (!is_temporary_file_of(target, candidate.filename().string())) continue;
    if (::unlink(candidate.c_str()) == 0) {
      log::info("{} removed {}, left by a writer of {} that stopped before renaming it", log_prefix, candidate.string(),
                target.string());
      removed.push_back(candidate);
    } else {
      log::warn("{} cannot remove the stale temporary file {}: {}", log_prefix, candidate.string(),
                std::generic_category().message(errno));
    }
  }
  if (ec) log::debug("{} cannot list {} for stale temporary files: {}", log_prefix, folder.string(), ec.message());
  return removed;
}

std::int64_t now_unix_seconds() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(now).count();
}

}  // namespace

Result<LockedUpdateOutcome> update_file_locked(const fs::path& target, const MergeStep& merge,
                                               const LockedUpdateOptions& options) {
  if (target.empty() || !target.has_filename()) {
    return Error(ErrorCode::IO_ERROR, fmt::format("cannot update '{}': not a file path", target.string()));
  }
  TUNEKIT_RETURN_IF_ERROR(create_parent(target));
  Result<FileLock> lock = FileLock::acquire(target, options.lock_timeout, LockMode::EXCLUSIVE);
  if (!lock.ok()) {
    return Error(lock.error().code(), fmt::format("cannot update {}: {}", target.string(), lock.error().message()));
  }

  LockedUpdateOutcome outcome;
  outcome.removed_temporaries = remove_stale_temporaries(target, options.log_prefix);
  Result<std::optional<std::string>> current = read_file_if_exists(target);
  if (!current.ok()) return current.error();
  Result<UpdatePlan> plan = merge(*current);
  if (!plan.ok()) return plan.error();

  const bool exists = current->has_value();
  if (exists && !plan->move_aside && **current == plan->contents) {
    outcome.status = LockedUpdateOutcome::Status::UNCHANGED;
    return outcome;
  }
  if (exists && plan->move_aside) {
    const std::int64_t seconds = options.unix_seconds.value_or(now_unix_seconds());
    Result<fs::path> moved = options.move_aside ? options.move_aside(target, seconds) : move_aside_corrupt(target, seconds);
    if (moved.ok()) {
      outcome.moved_aside = *moved;
    } else if (plan->overwrite_if_move_fails) {
      outcome.move_aside_error = moved.error();
    } else {
      return moved.error();
    }
  }
  AtomicWriteOptions write_options;
  write_options.before_rename = options.before_rename;
  TUNEKIT_RETURN_IF_ERROR(write_file_atomically(target, plan->contents, write_options));
  outcome.status = LockedUpdateOutcome::Status::WRITTEN;
  return outcome;
}

}  // namespace tunekit::store
