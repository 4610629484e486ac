// LoadKernelTuningCache: read under a shared lock, judge every entry alone,
// publish the compatible ones in one registry generation.
#include <fmt/format.h>

#include <map>
#include <set>

#include "cache_support.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/platform/identity_difference.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {
namespace {

using cache_support::RegisteredSchemas;
using EntryStatus = KernelTuningCacheEntryStatus;

std::vector<KernelTuningKey> selected_keys(const RegisteredSchemas& schemas,
                                           const KernelCalibrationSelection& selection) {
  std::vector<KernelTuningKey> keys;
  for (const KernelTuningKey& key : schemas.keys()) {
    if (selection.selects(key)) keys.push_back(key);
  }
  return keys;
}

// True when `name` may be given to a profile for `key` and `identity`: free,
// or held by the calibrated profile that this one replaces.
bool name_is_free(const RegistryGeneration& generation, const std::string& name, const KernelTuningKey& key,
                  const std::string& identity) {
  if (name.empty() || !generation.has_profile_named(name)) return true;
  for (const CalibratedKernelProfile& existing : generation.calibrated_profiles(key)) {
    if (existing.name == name && platform::execution_identity_string(existing.execution) == identity) return true;
  }
  return false;
}

void judge(ParsedKernelTuningCache& parsed, const KernelCalibrationSelection& selection,
           const KernelTuningCacheOptions& options, KernelTuningCacheLoadReport& report) {
  KernelTuningRegistry& registry = cache_support::registry_of(options);
  const RegisteredSchemas schemas(registry.snapshot());
  const platform::CpuExecutionDescriptor execution = cache_support::current_execution(options);
  const std::string identity = platform::execution_identity_string(execution);

  // One report per entry, in file order.
  std::map<std::size_t, KernelTuningCacheEntryReport> by_index;
  for (const KernelTuningCacheEntryError& error : parsed.malformed) {
    KernelTuningCacheEntryReport& r = by_index[error.index];
    r = {error.index, error.line, std::nullopt, {}, EntryStatus::INVALID, error.field, error.describe(parsed.source)};
  }
  std::map<KernelTuningCacheEntryKey, std::size_t> copies;
  for (const auto& item : parsed.entries) {
    if (selection.selects(item.entry.parameters.key)) ++copies[item.entry.complete_key()];
  }

  std::vector<CalibratedKernelProfile> candidates;
  std::vector<std::size_t> candidate_index;
  std::map<std::string, std::size_t> candidate_names;
  for (const auto& item : parsed.entries) {
    const KernelTuningCacheEntry& entry = item.entry;
    const KernelTuningKey& key = entry.parameters.key;
    KernelTuningCacheEntryReport& r = by_index[item.index];
    r.index = item.index;
    r.line = item.line;
    r.key = entry.complete_key();
    r.name = entry.name;
    r.effective_threads = entry.execution.effective_threads;
    const auto set = [&](EntryStatus status, std::string field, std::string reason) {
      r.status = status;
      r.field = std::move(field);
      r.reason = std::move(reason);
    };
    if (!selection.selects(key)) {
      set(EntryStatus::SKIPPED, {}, "not selected by " + selection.to_string());
      continue;
    }
    if (copies[*r.key] > 1) {
      set(EntryStatus::DUPLICATE, {}, fmt::format("its complete key appears {} times; no copy is loaded", copies[*r.key]));
      continue;
    }
    if (schemas.is_stale(key)) {
      set(EntryStatus::STALE_ABI, "tuning_abi", schemas.stale_reason(key));
      continue;
    }
    const KernelTuningSchema* schema = schemas.schema(key);
    if (!schema) {
      set(EntryStatus::UNREGISTERED, {}, fmt::format("no schema is registered for key {}", key.to_string()));
      continue;
    }
    if (Error e = schema->validate(entry.parameters); e.is_bad()) {
      set(EntryStatus::INVALID, "parameters", e.message());
      continue;
    }
    // Another thread count of this processor is published for its own
    // execution, which only a session for that thread count resolves.
    platform::CpuExecutionDescriptor compared = entry.execution;
    if (options.load_every_thread_count) compared.effective_threads = execution.effective_threads;
    if (auto difference = platform::first_identity_difference(compared, execution)) {
      set(EntryStatus::INCOMPATIBLE, difference->field, difference->to_string());
      continue;
    }
    if (!name_is_free(schemas.generation(), entry.name, key, r.key->execution_identity)) {
      set(EntryStatus::INVALID, "name", fmt::format("the name '{}' is used by another registered profile", entry.name));
      continue;
    }
    if (!entry.name.empty()) {
      auto [other, inserted] = candidate_names.emplace(entry.name, item.index);
      if (!inserted) {
        set(EntryStatus::INVALID, "name", fmt::format("the name '{}' is also used by entries[{}]", entry.name, other->second));
        continue;
      }
    }
    set(EntryStatus::LOADED, {}, {});
    candidates.push_back(entry.to_profile());
    candidate_index.push_back(item.index);
  }

  std::set<KernelTuningKey> loaded_for_execution;
  if (!candidates.empty()) {
    if (Error e = registry.try_publish_calibrated(std::move(candidates)); e.is_bad()) {
      for (std::size_t index : candidate_index) {
        by_index[index].status = EntryStatus::INVALID;
        by_index[index].reason = "not published: " + e.message();
      }
      log::warn("cache: nothing published from {}: {}", parsed.source, e.message());
    } else {
      report.published_generation = registry.generation_number();
      for (std::size_t index : candidate_index) {
        const KernelTuningCacheEntryKey& loaded = *by_index[index].key;
        if (loaded.execution_identity == identity) loaded_for_execution.insert(loaded.key);
      }
    }
  }
  for (auto& [index, entry_report] : by_index) {
    if (entry_report.status == EntryStatus::INVALID) {
      log::warn("cache: entry {} of {} is invalid: {}", index, parsed.source, entry_report.reason);
    } else if (entry_report.status != EntryStatus::LOADED && entry_report.status != EntryStatus::SKIPPED) {
      log::info("cache: entry {} of {} is {}: {}", index, parsed.source, to_string(entry_report.status),
                entry_report.reason);
    }
    report.entries.push_back(std::move(entry_report));
  }
  for (const KernelTuningKey& key : selected_keys(schemas, selection)) {
    if (!loaded_for_execution.count(key)) report.missing.push_back(key);
  }
}

void all_missing(const KernelCalibrationSelection& selection, const KernelTuningCacheOptions& options,
                 KernelTuningCacheLoadReport& report) {
  report.missing = selected_keys(RegisteredSchemas(cache_support::registry_of(options).snapshot()), selection);
}

}  // namespace

KernelTuningCacheLoadReport LoadKernelTuningCacheText(std::string_view text, std::string source,
                                                      const KernelCalibrationSelection& selection,
                                                      const KernelTuningCacheOptions& options) {
  KernelTuningCacheLoadReport report;
  report.path = source;
  Result<ParsedKernelTuningCache> parsed = salvage_kernel_tuning_cache(text, std::move(source));
  if (!parsed.ok()) {
    report.file_status = parsed.error().code() == ErrorCode::NOT_SUPPORTED
                             ? KernelTuningCacheFileStatus::UNSUPPORTED_VERSION
                             : KernelTuningCacheFileStatus::MALFORMED;
    report.file_reason = parsed.error().message();
    log::warn("cache: nothing loaded: {}", report.file_reason);
    all_missing(selection, options, report);
    return report;
  }
  report.file_status = KernelTuningCacheFileStatus::READ;
  if (parsed->salvaged) {
    report.salvage_reason = parsed->document_error;
    log::warn("cache: {} is not valid TOML ({}); recovered {} entries piece by piece", parsed->source,
              parsed->document_error, parsed->entries.size());
  }
  judge(*parsed, selection, options, report);
  log::info("cache: {}", report.summary());
  return report;
}

KernelTuningCacheLoadReport LoadKernelTuningCache(const KernelCalibrationSelection& selection,
                                                  const KernelTuningCacheOptions& options) {
  KernelTuningCacheLoadReport report;
  Result<std::filesystem::path> path = cache_support::resolve_path(options);
  if (!path.ok()) {
    report.file_status = KernelTuningCacheFileStatus::UNREADABLE;
    report.file_reason = path.error().message();
    all_missing(selection, options, report);
    return report;
  }
  report.path = *path;

  Result<std::optional<std::string>> text = cache_support::read_cache_file(report.path, options);
  if (!text.ok()) {
    report.file_status = KernelTuningCacheFileStatus::UNREADABLE;
    report.file_reason = text.error().message();
    log::warn("cache: nothing loaded: {}", report.file_reason);
    all_missing(selection, options, report);
    return report;
  }
  if (!text->has_value()) {
    report.file_status = KernelTuningCacheFileStatus::NOT_FOUND;
    log::debug("cache: no cache at {}", report.path.string());
    all_missing(selection, options, report);
    return report;
  }
  KernelTuningCacheLoadReport loaded = LoadKernelTuningCacheText(**text, report.path.string(), selection, options);
  loaded.path = report.path;
  return loaded;
}

}  // namespace tunekit::tuning
