// The config selection policy: override files named by a ':'-separated path
// list (TUNEKIT_HEUR_CONFIG_PATH for the process-wide policy), earlier files
// first. Each refresh stats the files and re-reads only those whose size or
// modification time changed; a missing or unreadable file is skipped with a
// logged reason. Override text compiled into the program (headers from
// `tunekit gen-overrides`) is registered as embedded sources, which the
// policy consults after every file. create_execution_plans() consults the
// process-wide policy.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/override_index.hpp"

namespace tunekit::graph {

inline constexpr const char* kOverridePathVariable = "TUNEKIT_HEUR_CONFIG_PATH";

// Nearest tuned shape (override_index.hpp): the distance within which the
// winner of a tuned shape of the same pattern stands in for a shape no entry
// matches. 2: one dim up to four times (or a quarter of) the tuned one, or
// two dims up to twice. TUNEKIT_HEUR_NEAREST_LIMIT sets another limit; 0
// turns nearest-shape selection off.
inline constexpr double kDefaultNearestShapeLimit = 2.0;
inline constexpr const char* kNearestShapeLimitVariable = "TUNEKIT_HEUR_NEAREST_LIMIT";
// The limit of the environment: TUNEKIT_HEUR_NEAREST_LIMIT when it is a
// number of at least 0, else (logged at warn level when set but invalid) the
// default.
double nearest_shape_limit_from_environment();

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

  // Adds override text compiled into the program as a source named
  // source_name; registering a name again replaces that source in its place.
  // The text is parsed once, here, with the file reader: a malformed entry
  // is skipped (logged at warn level) and the others are registered.
  // INVALID_VALUE "embedded:<source_name>: line L, column C: ..." when the
  // text is not JSON or not an override file, and then nothing changes;
  // INVALID_VALUE when source_name is empty.
  //
  // Precedence: embedded sources act as files appended to the path list in
  // registration order, under the index's rules (an exact entry beats a
  // wildcard entry whatever their sources; among equals the earlier source
  // wins). So any file beats an embedded source for the same entry, and a
  // file's wildcard entry does not beat an embedded exact one: to override a
  // compiled-in exact entry, a file gives an exact entry. Their entries
  // report the source "embedded:<source_name>". Refreshing reads no file
  // for them. Thread-safe.
  Error register_embedded(std::string source_name, std::string_view json_text);

  // Brings the index up to date and returns it; null when no file loaded
  // and no embedded source is registered.
  // Thread-safe; the returned index is immutable.
  std::shared_ptr<const OverrideIndex> refresh();
  // The listed files that the last refresh left out, in list order.
  std::vector<SkippedOverrideFile> skipped_files() const;
  // Files parsed since construction (a reload counts again).
  std::size_t parse_count() const;

  // The process-wide policy, which follows TUNEKIT_HEUR_CONFIG_PATH (read at
  // every refresh_from_environment); its embedded sources apply whether the
  // variable is set or not.
  static OverridePolicy& process();
  std::shared_ptr<const OverrideIndex> refresh_from_environment();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunekit::graph
