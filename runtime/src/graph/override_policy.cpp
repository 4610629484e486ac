// The selection policy's sources: files with stat-based reloads, embedded
// texts parsed once at registration, one immutable index per change, and the
// process-wide instance that follows TUNEKIT_HEUR_CONFIG_PATH.
#include "tunekit/graph/override_policy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "tunekit/core/excerpt.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph {
namespace {

struct FileStamp {
  std::int64_t size = -1;
  std::int64_t mtime_ns = -1;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

std::optional<FileStamp> stamp_of(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileStamp{static_cast<std::int64_t>(info.st_size),
                   static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec};
}

struct Loaded {
  std::filesystem::path path;
  std::optional<FileStamp> stamp;     // nullopt: missing
  std::optional<OverrideFile> file;   // nullopt: missing or unreadable
  std::string skipped;                // why file is nullopt
};

struct Embedded {
  std::string name;   // as registered
  OverrideFile file;  // source: "embedded:<name>"
};

}  // namespace

std::vector<std::filesystem::path> split_override_path_list(std::string_view list) {
  std::vector<std::filesystem::path> paths;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) paths.emplace_back(std::string(list.substr(start, end - start)));
    start = end + 1;
  }
  return paths;
}

struct OverridePolicy::Impl {
  mutable std::mutex mutex;
  std::vector<Loaded> files;
  std::vector<Embedded> embedded;  // after the files, in registration order
  std::shared_ptr<const OverrideIndex> index;
  std::size_t parses = 0;
  std::optional<std::string> environment;  // the variable's value last applied
};

OverridePolicy::OverridePolicy() : impl_(std::make_unique<Impl>()) {}
OverridePolicy::~OverridePolicy() = default;

void OverridePolicy::set_paths(std::vector<std::filesystem::path> paths) {
  std::lock_guard lock(impl_->mutex);
  std::vector<Loaded> files;
  for (auto& path : paths) {
    Loaded loaded;
    // Keep what is already loaded for a path listed again.
    for (const Loaded& old : impl_->files) {
      if (old.path == path) loaded = old;
    }
    loaded.path = std::move(path);
    files.push_back(std::move(loaded));
  }
  impl_->files = std::move(files);
  impl_->index.reset();
}

Error OverridePolicy::register_embedded(std::string source_name, std::string_view json_text) {
  if (source_name.empty()) {
    return Error(ErrorCode::INVALID_VALUE, "embedded overrides: the source name must not be empty");
  }
  // Parsed outside the lock: lookups and refreshes do not wait for it.
  Result<OverrideFile> file = parse_override_file(json_text, "embedded:" + source_name);
  if (!file.ok()) return file.error();
  for (const OverrideEntryProblem& problem : file->rejected) {
    log::warn("overrides: {}: {} (entry skipped)", file->source, describe(problem));
  }
  log::debug("overrides: registered {} ({} entries, {} rejected)", file->source, file->entries.size(),
             file->rejected.size());
  std::lock_guard lock(impl_->mutex);
  auto same = std::find_if(impl_->embedded.begin(), impl_->embedded.end(),
                           [&](const Embedded& e) { return e.name == source_name; });
  if (same != impl_->embedded.end()) {
    same->file = std::move(file).value();
  } else {
    impl_->embedded.push_back({std::move(source_name), std::move(file).value()});
  }
  impl_->index.reset();
  return Error::ok();
}

std::shared_ptr<const OverrideIndex> OverridePolicy::refresh() {
  std::lock_guard lock(impl_->mutex);
  bool changed = !impl_->index;
  for (Loaded& loaded : impl_->files) {
    const std::optional<FileStamp> stamp = stamp_of(loaded.path);
    if (!stamp) loaded.skipped = "does not exist";
    if (stamp == loaded.stamp && (loaded.file || !stamp)) continue;
    if (stamp != loaded.stamp) changed = true;
    loaded.stamp = stamp;
    loaded.file.reset();
    if (!stamp) {
      log::debug("overrides: {} does not exist; skipped", loaded.path.string());
      continue;
    }
    ++impl_->parses;
    Result<OverrideFile> file = read_override_file(loaded.path);
    if (!file.ok()) {
      loaded.skipped = file.error().message();
      log::warn("overrides: {} is skipped: {}", loaded.path.string(), file.error().message());
      continue;
    }
    loaded.skipped.clear();
    for (const OverrideEntryProblem& problem : file->rejected) {
      log::warn("overrides: {}: {} (entry skipped)", loaded.path.string(), describe(problem));
    }
    log::info("overrides: loaded {} ({} entries, {} rejected)", loaded.path.string(), file->entries.size(),
              file->rejected.size());
    loaded.file = std::move(file).value();
    changed = true;
  }
  if (changed) {
    std::vector<OverrideFile> files;
    for (const Loaded& loaded : impl_->files) {
      if (loaded.file) files.push_back(*loaded.file);
    }
    for (const Embedded& embedded : impl_->embedded) files.push_back(embedded.file);
    impl_->index = std::make_shared<const OverrideIndex>(std::move(files));
  }
  return impl_->index->files().empty() ? nullptr : impl_->index;
}

std::vector<SkippedOverrideFile> OverridePolicy::skipped_files() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<SkippedOverrideFile> skipped;
  for (const Loaded& loaded : impl_->files) {
    if (!loaded.file && !loaded.skipped.empty()) skipped.push_back({loaded.path, loaded.skipped});
  }
  return skipped;
}

std::size_t OverridePolicy::parse_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->parses;
}

OverridePolicy& OverridePolicy::process() {
  static OverridePolicy policy;
  return policy;
}

double nearest_shape_limit_from_environment() {
  const char* value = std::getenv(kNearestShapeLimitVariable);
  if (!value || *value == '\0') return kDefaultNearestShapeLimit;
  char* end = nullptr;
  const double limit = std::strtod(value, &end);
  if (*end != '\0' || !(limit >= 0) || !std::isfinite(limit)) {
    log::warn("overrides: {}='{}' is not a number of at least 0; using {}", kNearestShapeLimitVariable,
              core::excerpt(value), kDefaultNearestShapeLimit);
    return kDefaultNearestShapeLimit;
  }
  return limit;
}

std::shared_ptr<const OverrideIndex> OverridePolicy::refresh_from_environment() {
  const char* value = std::getenv(kOverridePathVariable);
  const std::string list = value ? value : "";
  bool apply = false;
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->environment || *impl_->environment != list) {
      impl_->environment = list;
      apply = true;
    }
  }
  if (apply) set_paths(split_override_path_list(list));
  return refresh();
}

}  // namespace tunekit::graph
