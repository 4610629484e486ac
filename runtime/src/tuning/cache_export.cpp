// Export of calibrated cache entries as deployment profiles for an explicit
// selector, and their all-or-nothing import into a registry.
#include <fmt/format.h>

#include <map>

#include "cache_support.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::tuning {

Error validate_deployment_selector(const CpuSelector& selector) {
  TUNEKIT_RETURN_IF_ERROR(validate(selector));
  if (!selector.vendor && !selector.family && selector.models.empty() && !selector.microarchitecture &&
      selector.required_features.empty()) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("selector {}: a deployment selector must name a vendor, family, model, microarchitecture "
                        "or required feature",
                        selector.to_string())};
  }
  return Error::ok();
}

Result<std::vector<KernelTuningProfile>> ExportDeploymentProfiles(const KernelCalibrationSelection& selection,
                                                                  const CpuSelector& selector,
                                                                  const KernelTuningCacheOptions& options,
                                                                  int priority) {
  TUNEKIT_RETURN_IF_ERROR(validate_deployment_selector(selector));
  Result<std::filesystem::path> path = cache_support::resolve_path(options);
  if (!path.ok()) return path.error();
  Result<std::optional<std::string>> text = cache_support::read_cache_file(*path, options);
  if (!text.ok()) return text.error();
  if (!text->has_value()) return Error(ErrorCode::IO_ERROR, fmt::format("{}: no cache file", path->string()));
  Result<ParsedKernelTuningCache> parsed = salvage_kernel_tuning_cache(**text, path->string());
  if (!parsed.ok()) return parsed.error();
  if (parsed->salvaged) {
    log::warn("cache: {} is not valid TOML ({}); export uses the {} entries recovered piece by piece",
              parsed->source, parsed->document_error, parsed->entries.size());
  }
  for (const KernelTuningCacheEntryError& error : parsed->malformed) {
    log::warn("cache: export skips malformed entry {}", error.describe(parsed->source));
  }

  const cache_support::RegisteredSchemas schemas(cache_support::registry_of(options).snapshot());
  std::map<KernelTuningKey, const ParsedKernelTuningCache::Item*> chosen;
  for (const ParsedKernelTuningCache::Item& item : parsed->entries) {
    const KernelTuningKey& key = item.entry.parameters.key;
    if (!selection.selects(key)) continue;
    std::string reason;
    if (!matches(selector, item.entry.execution, &reason)) {
      log::info("cache: export skips entries[{}] ({}): measured outside the selector: {}", item.index,
                key.to_string(), reason);
      continue;
    }
    if (const KernelTuningSchema* schema = schemas.schema(key)) {
      if (Error e = schema->validate(item.entry.parameters); e.is_bad()) {
        log::warn("cache: export skips entries[{}]: {}", item.index, e.message());
        continue;
      }
    } else if (schemas.is_stale(key)) {
      log::info("cache: export skips entries[{}] ({}): {}", item.index, key.to_string(), schemas.stale_reason(key));
      continue;
    } else if (!options.allow_unregistered_keys) {
      log::info("cache: export skips entries[{}]: no schema is registered for key {}", item.index, key.to_string());
      continue;
    }
    auto [found, inserted] = chosen.emplace(key, &item);
    if (!inserted) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("{}: entries[{}] and entries[{}] of key {} were both measured on processors the "
                               "selector {} accepts ({} and {}); narrow the selector, for example with thread bounds",
                               parsed->source, found->second->index, item.index, key.to_string(), selector.to_string(),
                               found->second->entry.complete_key().execution_identity,
                               item.entry.complete_key().execution_identity));
    }
  }
  std::vector<KernelTuningProfile> profiles;
  for (const auto& [key, item] : chosen) {
    KernelTuningProfile profile;
    profile.name = fmt::format("deployment:{}@{}", key.to_string(), selector.to_string());
    profile.selector = selector;
    profile.parameters = item->entry.parameters;
    profile.priority = priority;
    profiles.push_back(std::move(profile));
  }
  return profiles;
}

Error ImportDeploymentProfiles(std::vector<KernelTuningProfile> profiles, KernelTuningRegistry& registry) {
  for (const KernelTuningProfile& profile : profiles) {
    if (Error e = validate_deployment_selector(profile.selector); e.is_bad()) {
      return {e.code(), fmt::format("profile {}: {}", profile.name, e.message())};
    }
  }
  TUNEKIT_RETURN_IF_ERROR(registry.try_register_profiles(std::move(profiles)));
  return Error::ok();
}

Error ImportDeploymentProfiles(const std::filesystem::path& path, KernelTuningRegistry& registry) {
  Result<std::vector<KernelTuningProfile>> profiles = ReadDeploymentProfiles(path);
  if (!profiles.ok()) return profiles.error();
  const std::size_t count = profiles->size();
  TUNEKIT_RETURN_IF_ERROR(ImportDeploymentProfiles(std::move(*profiles), registry));
  log::info("cache: imported {} deployment profiles from {}", count, path.string());
  return Error::ok();
}

}  // namespace tunekit::tuning
