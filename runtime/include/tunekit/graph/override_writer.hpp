// Persisting an autotune winner to an engine-override file (version 2). The
// entry names the core operation's input tensors (A and B for matmul, X and
// W for conv_fprop) and is keyed by (operation, criteria, tensors by id in
// any order); an entry with the same key, or one of the same graph that also
// names its outputs (as earlier tunekit versions wrote), is replaced in
// place; others are kept unless the storage config deletes all existing
// content. Appending to a file that is JSON but not a version-2 override file
// (version 1, no engine_overrides array) is refused (INVALID_VALUE, nothing
// written). A malformed entry of a valid file is kept as it is, where it is,
// reported and never matched. Only a file that is not JSON is moved aside to
// `<file>.corrupt-<unix-seconds>` (an error is logged) and replaced by a fresh
// file with the new entry; when it cannot be moved, a warning is logged and
// it is overwritten. The write goes through store::update_file_locked, so
// concurrent writers of different keys lose nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/autotune_config.hpp"
#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/graph/operation_graph.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/platform/device.hpp"
#include "tunekit/store/locked_update.hpp"

namespace tunekit::graph {

struct OverrideWriteOptions {
  std::chrono::milliseconds lock_timeout = store::kWriterLockTimeout;
  // Time written as the timestamp (and used for the corrupt-file name); now when unset.
  std::optional<std::int64_t> unix_seconds;
  // Test hook replacing store::move_aside_corrupt.
  std::function<Result<std::filesystem::path>(const std::filesystem::path&, std::int64_t)> move_aside;
};

struct OverrideWriteReport {
  enum class Status { WRITTEN, SKIPPED };
  Status status = Status::WRITTEN;
  std::filesystem::path path;
  bool replaced = false;                    // an entry with the same key was replaced
  std::size_t entries = 0;                  // entries in the file written
  std::optional<std::filesystem::path> moved_aside;  // where a file that is not JSON went
  std::vector<OverrideEntryProblem> malformed;       // entries kept as they were, never matched
  std::string note;                                  // why skipped, or what was overwritten
};

// The device and engines the winner was measured with, for the validators.
struct OverrideWriteContext {
  const platform::Device& device;
  const EngineRegistry& registry;
};

// Writes winner (rank 0) for graph's core operation. SKIPPED (with a
// warning) when the core operation has no named input tensors; INVALID_VALUE
// when winner did not succeed or appending is refused; IO_ERROR when the
// folder, lock file or file cannot be written; BAD_STATE when another writer
// holds the lock past options.lock_timeout. Errors are returned, not logged.
Result<OverrideWriteReport> write_autotune_override(const OperationGraph& graph, const AutotuneResult& winner,
                                                    const OverrideWriteContext& context,
                                                    const AutotuneStorageConfig& storage,
                                                    const OverrideWriteOptions& options = {});

// ISO 8601 UTC, "2026-04-21T10:30:00Z".
std::string iso8601_utc(std::int64_t unix_seconds);

// Combines override files into one version-2 file at output (replaced
// atomically under its lock). Inputs must be version 2. For each match key
// the entry of the earliest input wins, and within an input the earlier
// entry (the policy's precedence). Unknown fields are kept. Returns the number of
// entries written; INVALID_VALUE naming an input that cannot be read (with
// the system's reason), is not version 2 or not an override file; IO_ERROR
// only for the output (update_file_locked's errors, naming it and the reason),
// so that a caller can tell a bad input from an output it cannot write.
Result<std::size_t> merge_override_files(const std::vector<std::filesystem::path>& inputs,
                                         const std::filesystem::path& output);

}  // namespace tunekit::graph
