// Processor profiles installed beside a program rather than compiled into it
// (a package calibrated on the installing machine puts them under
// <prefix>/share/<project>/tunekit/profiles), found and registered at start-up.
// Each file is one all-or-none import, so one bad or conflicting file is
// skipped with its reason while the others load.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::tuning {

// ':'-separated folders searched before the installed ones (empty entries
// are ignored).
inline constexpr const char* kProfilePathVariable = "TUNEKIT_PROFILE_PATH";

struct InstalledProfilesOptions {
  // Searched after $TUNEKIT_PROFILE_PATH and the folder beside the executable,
  // e.g. the configured <prefix>/share/<project>/tunekit/profiles.
  std::vector<std::filesystem::path> extra_folders;
};

struct LoadedProfileFile {
  std::filesystem::path path;
  std::size_t profiles = 0;
};

struct SkippedProfileFile {
  std::filesystem::path path;
  std::string reason;  // the reader's or the registry's message
};

struct InstalledProfilesReport {
  // Every folder searched, in order (a folder listed twice is searched once).
  std::vector<std::filesystem::path> folders;
  std::vector<LoadedProfileFile> loaded;    // in load order
  std::vector<SkippedProfileFile> skipped;  // files, and folders that could not be listed

  std::size_t profile_count() const noexcept;
  // "installed profiles: 3 from 2 files, 1 skipped (/p/a.toml: <reason>)", or
  // "installed profiles: none found in 3 folders".
  std::string summary() const;
};

// Searches, in order: each entry of $TUNEKIT_PROFILE_PATH, then
// <folder of the running executable>/../share/<project>/tunekit/profiles,
// then options.extra_folders. Every *.toml file of a folder (not recursive,
// sorted by file name) is imported by itself with ImportDeploymentProfiles:
// earlier files win, since a later profile that is ambiguous with a loaded
// one makes its whole file skipped. A folder that does not exist is not an
// error. Never throws.
InstalledProfilesReport LoadInstalledProfiles(std::string_view project, const InstalledProfilesOptions& options = {},
                                              KernelTuningRegistry& registry = KernelTuningRegistry::global());

// <folder of /proc/self/exe>/../share/<project>/tunekit/profiles (normalised),
// or an empty path when the executable's path cannot be read.
std::filesystem::path installed_profile_folder(std::string_view project);

}  // namespace tunekit::tuning
