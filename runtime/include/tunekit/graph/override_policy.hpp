// The config selection policy: override files named by a ':'-separated path
// list (TUNEKIT_HEUR_CONFIG_PATH for the process-wide policy), earlier files
// first. Each refresh stats the files and re-reads only those whose size or
// modification time changed; a missing or unreadable file is skipped with a
// logged reason. create_execution_plans() consults the process-wide policy.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/graph/override_index.hpp"

namespace tunekit::graph {

inline constexpr const char* kOverridePathVariable = "TUNEKIT_HEUR_CONFIG_PATH";

// Splits "a.json:b.json" into paths, dropping empty parts.
std::vector<std::filesystem::path> split_override_path_list(std::string_view list);

// A listed file the policy's index leaves out, and why: "does not exist", or
// the reader's error naming the file and position.
struct SkippedOverrideFile {
  std::filesystem::path path;
  std::string reason;
  friend bool operator==(const SkippedOverrideFile&, const SkippedOverrideFile&) = default;
};

class OverridePolicy {
 public:
  OverridePolicy();
  ~OverridePolicy();
  OverridePolicy(const OverridePolicy&) = delete;
  OverridePolicy& operator=(const OverridePolicy&) = delete;

  void set_paths(std::vector<std::filesystem::path> paths);
  // Brings the index up to date and returns it; null when no file loaded.
  // Thread-safe; the returned index is immutable.
  std::shared_ptr<const OverrideIndex> refresh();
  // The listed files that the last refresh left out, in list order.
  std::vector<SkippedOverrideFile> skipped_files() const;
  // Files parsed since construction (a reload counts again).
  std::size_t parse_count() const;

  // The process-wide policy, which follows TUNEKIT_HEUR_CONFIG_PATH (read at
  // every refresh_from_environment).
  static OverridePolicy& process();
  std::shared_ptr<const OverrideIndex> refresh_from_environment();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunekit::graph
