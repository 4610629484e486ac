// Persisting an autotune winner to an engine-override file (version 2). The
// entry is keyed by (operation, criteria, tensors by id in any order); an
// entry with the same key is replaced in place, others are kept unless the
// storage config deletes all existing content. Appending to a version-1 or
// non-override file is refused (INVALID_VALUE, nothing written). A file that
// is not JSON, or whose entries do not all parse, is moved aside to
// `<file>.corrupt-<unix-seconds>` (an error is logged) and a fresh file is
// written with the valid entries and the new one; when it cannot be moved,
// a warning is logged and it is overwritten. Every write holds the store
// lock around re-read, merge and atomic replace, so concurrent writers of
// different keys lose nothing.
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
#include "tunekit/platform/device.hpp"

namespace tunekit::graph {

struct OverrideWriteOptions {
  std::chrono::milliseconds lock_timeout{30000};
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
  std::optional<std::filesystem::path> moved_aside;  // where a corrupt file went
  std::size_t dropped = 0;                  // unparsable entries not carried over
  std::string note;                         // why skipped, or what was overwritten
};

// The device and engines the winner was measured with, for the validators.
struct OverrideWriteContext {
  const platform::Device& device;
  const EngineRegistry& registry;
};

// Writes winner (rank 0) for graph's core operation. SKIPPED (with a
// warning) when the core operation has no named tensors; INVALID_VALUE when
// winner did not succeed or appending is refused; IO_ERROR when the folder,
// lock or file cannot be written.
Result<OverrideWriteReport> write_autotune_override(const OperationGraph& graph, const AutotuneResult& winner,
                                                    const OverrideWriteContext& context,
                                                    const AutotuneStorageConfig& storage,
                                                    const OverrideWriteOptions& options = {});

// ISO 8601 UTC, "2026-04-21T10:30:00Z".
std::string iso8601_utc(std::int64_t unix_seconds);

// Combines override files into one version-2 file at output (replaced
// atomically under its lock). Inputs must be version 2. For each match key
// the entry of the earliest input wins (the policy's precedence); within an
// input the later entry wins. Unknown fields are kept. Returns the number of
// entries written; INVALID_VALUE naming an input that is not version 2 or
// not an override file.
Result<std::size_t> merge_override_files(const std::vector<std::filesystem::path>& inputs,
                                         const std::filesystem::path& output);

}  // namespace tunekit::graph
