// Deployment profiles: calibrated cache entries turned into processor
// profiles for an explicit list of processors, so a build farm can calibrate
// one representative machine and ship the result. The file holds several
// profiles; import registers all of them or none, and an imported profile
// never matches a processor outside its selector.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {

inline constexpr std::int64_t kDeploymentProfileSchemaVersion = 1;

// validate(selector), and the selector must name at least a vendor, family,
// model, microarchitecture or required feature: a calibrated value shipped
// for "every processor" would be a wrong portable default.
Error validate_deployment_selector(const CpuSelector& selector);

// The selected cache entries (options.path or the default cache) measured on
// a processor the selector accepts, as profiles constrained by `selector`
// with the entry's parameters and `priority`, sorted by key. The cache is
// read by salvage_kernel_tuning_cache, so a damaged file yields its intact
// entries. Entries that are malformed or damaged, not selected, measured on a
// processor outside the selector, of a stale ABI, or without a registered
// schema (unless options.allow_unregistered_keys) are left out and logged;
// registered schemas validate the parameters. Errors: an invalid or
// inexplicit selector; an unreadable or missing cache, or one from which
// nothing can be recovered (its header does not parse); two entries of one
// key that the selector both accepts (narrow it, for example with thread bounds).
Result<std::vector<KernelTuningProfile>> ExportDeploymentProfiles(const KernelCalibrationSelection& selection,
                                                                  const CpuSelector& selector,
                                                                  const KernelTuningCacheOptions& options = {},
                                                                  int priority = 0);

// Deterministic TOML text of profiles (sorted by key, then name).
std::string format_deployment_profiles(std::span<const KernelTuningProfile> profiles);
// Reads a deployment profile file: every profile must parse and carry a
// valid, explicit selector, or the whole file is an error naming
// "<source>:<line>:<column>: <field>: <reason>". A text beyond
// store::TomlLimits is refused before it is parsed, naming the line and the limit.
Result<std::vector<KernelTuningProfile>> parse_deployment_profiles(std::string_view text, std::string source);

// Atomic replace of `path` (folders created) with format_deployment_profiles.
Error WriteDeploymentProfiles(const std::filesystem::path& path, std::span<const KernelTuningProfile> profiles);
Result<std::vector<KernelTuningProfile>> ReadDeploymentProfiles(const std::filesystem::path& path);

// The profile files of a folder (profiles/<library>/): its *.toml regular
// files, not recursive, sorted by file name. IO_ERROR "<folder>: cannot list
// the folder: <reason>" when it cannot be listed (also when it does not exist:
// callers that allow a missing folder check first).
Result<std::vector<std::filesystem::path>> ListProfileFiles(const std::filesystem::path& folder);

// Registers every profile in one generation of `registry`, or none: each
// selector must pass validate_deployment_selector, then
// KernelTuningRegistry::try_register_profiles checks schemas, names and
// ambiguity.
Error ImportDeploymentProfiles(std::vector<KernelTuningProfile> profiles,
                               KernelTuningRegistry& registry = KernelTuningRegistry::global());
Error ImportDeploymentProfiles(const std::filesystem::path& path,
                               KernelTuningRegistry& registry = KernelTuningRegistry::global());

}  // namespace tunekit::tuning
