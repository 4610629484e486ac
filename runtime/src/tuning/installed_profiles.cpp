// Finding and importing installed profile files, file by file.
#include "tunekit/tuning/installed_profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <set>

#include "tunekit/core/log.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> environment_folders() {
  std::vector<fs::path> folders;
  const char* value = std::getenv(kProfilePathVariable);
  if (value == nullptr) return folders;
  std::string_view rest(value);
  while (true) {
    const std::size_t colon = rest.find(':');
    if (std::string_view entry = rest.substr(0, colon); !entry.empty()) folders.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return folders;
}

// The folder's *.toml files sorted by name; nullopt when it does not exist.
std::optional<std::vector<fs::path>> profile_files(const fs::path& folder, InstalledProfilesReport& report) {
  std::error_code ec;
  const fs::file_status status = fs::status(folder, ec);
  if (!fs::exists(status)) return std::nullopt;
  if (!fs::is_directory(status)) {
    report.skipped.push_back({folder, "not a folder"});
    return std::nullopt;
  }
  Result<std::vector<fs::path>> files = ListProfileFiles(folder);
  if (!files.ok()) {
    report.skipped.push_back({folder, files.error().message()});
    return std::nullopt;
  }
  return std::move(*files);
}

void load_file(const fs::path& file, KernelTuningRegistry& registry, InstalledProfilesReport& report) {
  Result<std::vector<KernelTuningProfile>> profiles = ReadDeploymentProfiles(file);
  if (!profiles.ok()) {
    report.skipped.push_back({file, profiles.error().message()});
    return;
  }
  const std::size_t count = profiles->size();
  if (Error e = ImportDeploymentProfiles(std::move(*profiles), registry); e.is_bad()) {
    report.skipped.push_back({file, e.message()});
    return;
  }
  report.loaded.push_back({file, count});
}

}  // namespace

std::size_t InstalledProfilesReport::profile_count() const noexcept {
  std::size_t count = 0;
  for (const LoadedProfileFile& f : loaded) count += f.profiles;
  return count;
}

std::string InstalledProfilesReport::summary() const {
  if (loaded.empty() && skipped.empty()) {
    return fmt::format("installed profiles: none found in {} folders", folders.size());
  }
  std::string out = fmt::format("installed profiles: {} from {} files", profile_count(), loaded.size());
  if (!skipped.empty()) {
    std::vector<std::string> reasons;
    for (const SkippedProfileFile& s : skipped) reasons.push_back(fmt::format("{}: {}", s.path.string(), s.reason));
    out += fmt::format(", {} skipped ({})", skipped.size(), fmt::join(reasons, "; "));
  }
  return out;
}

fs::path installed_profile_folder(std::string_view project) {
  std::error_code ec;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (ec || executable.empty()) return {};
  return (executable.parent_path() / ".." / "share" / fs::path(project) / "tunekit" / "profiles").lexically_normal();
}

InstalledProfilesReport LoadInstalledProfiles(std::string_view project, const InstalledProfilesOptions& options,
                                              KernelTuningRegistry& registry) {
  InstalledProfilesReport report;
  try {
    std::vector<fs::path> folders = environment_folders();
    if (fs::path beside = installed_profile_folder(project); !beside.empty()) folders.push_back(std::move(beside));
    folders.insert(folders.end(), options.extra_folders.begin(), options.extra_folders.end());
    std::set<fs::path> seen;
    for (const fs::path& folder : folders) {
      if (!seen.insert(folder.lexically_normal()).second) continue;
      report.folders.push_back(folder);
      std::optional<std::vector<fs::path>> files = profile_files(folder, report);
      if (!files) continue;
      for (const fs::path& file : *files) load_file(file, registry, report);
    }
  } catch (const std::exception& e) {
    // Only allocation can throw here; what was registered stays registered.
    report.skipped.push_back({{}, fmt::format("stopped searching: {}", e.what())});
  }
  core::log::debug("{}", report.summary());
  return report;
}

}  // namespace tunekit::tuning
