// UpdateKernelTuningCache and MergeKernelTuningCacheEntries: validate, then
// this format's merge step for store::update_file_locked: read the stored
// entries (salvaging a broken file, asking to move it aside), merge by
// complete key, prune, serialise.
#include <fmt/format.h>

#include <map>

#include "cache_support.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/platform/identity_difference.hpp"
#include "tunekit/store/locked_update.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {
namespace {

using cache_support::RegisteredSchemas;
using Status = KernelTuningCacheUpdateStatus;

KernelTuningCacheEntryRef ref(const KernelTuningCacheEntry& entry, std::string reason = {}) {
  return {entry.complete_key(), entry.name, std::move(reason)};
}

KernelTuningCacheUpdateReport failed(KernelTuningCacheUpdateReport report, Error error) {
  report.status = Status::FAILED;
  report.error = std::move(error);
  log::warn("cache: update of {} failed: {}", report.path.string(), report.error.message());
  return report;
}

// OK when the entry may be written; otherwise INVALID_VALUE saying why not.
Error check_incoming(const KernelTuningCacheEntry& entry, const RegisteredSchemas& schemas, bool allow_unregistered) {
  TUNEKIT_RETURN_IF_ERROR(check_writable(entry));
  const KernelTuningKey& key = entry.parameters.key;
  const KernelTuningSchema* schema = schemas.schema(key);
  if (!schema) {
    if (allow_unregistered) return Error::ok();
    if (schemas.is_stale(key)) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("key {}: stale tuning ABI ({})", key.to_string(), schemas.stale_reason(key)));
    }
    return Error(ErrorCode::INVALID_VALUE, fmt::format("no schema is registered for key {}", key.to_string()));
  }
  return schema->validate(entry.parameters);
}

// The stored file's well-formed entries with every complete key once; what
// was dropped goes into the report. `moved` is set when the file must be moved
// aside before being replaced (its data would otherwise be lost).
Result<std::vector<KernelTuningCacheEntry>> read_stored(const std::string& text, KernelTuningCacheUpdateReport& report,
                                                        bool& move_aside) {
  const std::string source = report.path.string();
  Result<ParsedKernelTuningCache> parsed = salvage_kernel_tuning_cache(text, source);
  if (!parsed.ok()) {
    if (parsed.error().code() == ErrorCode::NOT_SUPPORTED) return parsed.error();
    move_aside = true;
    report.dropped.push_back({{}, {}, parsed.error().message()});
    log::warn("cache: {} cannot be parsed; no entry can be recovered: {}", source, parsed.error().message());
    return std::vector<KernelTuningCacheEntry>{};
  }
  if (parsed->salvaged) {
    move_aside = true;
    log::warn("cache: {} is not valid TOML ({}); recovered {} entries piece by piece", source,
              parsed->document_error, parsed->entries.size());
  }
  for (const KernelTuningCacheEntryError& error : parsed->malformed) {
    move_aside = true;
    report.dropped.push_back({{}, {}, error.describe(source)});
    log::warn("cache: dropping malformed entry {}", error.describe(source));
  }
  std::vector<KernelTuningCacheEntry> stored;
  std::map<KernelTuningCacheEntryKey, std::size_t> first_index;
  for (ParsedKernelTuningCache::Item& item : parsed->entries) {
    KernelTuningCacheEntryKey key = item.entry.complete_key();
    auto [found, inserted] = first_index.emplace(key, item.index);
    if (!inserted) {
      move_aside = true;
      std::string reason = fmt::format("{}:{}: entries[{}] repeats the complete key of entries[{}]", source,
                                       item.line, item.index, found->second);
      log::warn("cache: dropping duplicate entry: {}", reason);
      report.dropped.push_back(ref(item.entry, std::move(reason)));
      continue;
    }
    stored.push_back(std::move(item.entry));
  }
  return stored;
}

// Stored entries first (file order), then new complete keys; prunes what
// the options ask for. What happened to each entry goes into the report.
std::vector<KernelTuningCacheEntry> merge_entries(std::vector<KernelTuningCacheEntry> stored,
                                                  std::vector<KernelTuningCacheEntry> incoming,
                                                  const RegisteredSchemas& schemas,
                                                  const std::optional<platform::CpuExecutionDescriptor>& execution,
                                                  const KernelTuningCacheOptions& options,
                                                  KernelTuningCacheUpdateReport& report) {
  std::map<KernelTuningCacheEntryKey, std::size_t> stored_index;
  for (std::size_t i = 0; i < stored.size(); ++i) stored_index.emplace(stored[i].complete_key(), i);
  std::vector<bool> touched(stored.size(), false);
  std::vector<KernelTuningCacheEntry> merged_new;
  for (KernelTuningCacheEntry& entry : incoming) {
    auto found = stored_index.find(entry.complete_key());
    if (found == stored_index.end()) {
      report.written.push_back(ref(entry));
      merged_new.push_back(std::move(entry));
    } else if (options.replace_existing) {
      report.replaced.push_back(ref(stored[found->second]));
      stored[found->second] = std::move(entry);
      touched[found->second] = true;
    } else {
      report.kept.push_back(ref(stored[found->second], "an entry with this complete key exists and "
                                                       "replace_existing is false"));
      touched[found->second] = true;
    }
  }

  std::vector<KernelTuningCacheEntry> result;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const bool replaced = touched[i] && options.replace_existing;
    if (!replaced) {
      const KernelTuningKey& key = stored[i].parameters.key;
      if (options.prune_stale_abi && schemas.is_stale(key)) {
        report.pruned.push_back(ref(stored[i], "stale tuning ABI: " + schemas.stale_reason(key)));
        continue;
      }
      if (execution) {
        if (auto difference = platform::first_identity_difference(stored[i].execution, *execution)) {
          report.pruned.push_back(ref(stored[i], "execution mismatch: " + difference->to_string()));
          continue;
        }
      }
      if (!touched[i]) ++report.preserved;
    }
    result.push_back(std::move(stored[i]));
  }
  for (KernelTuningCacheEntry& entry : merged_new) result.push_back(std::move(entry));
  return result;
}

KernelTuningCacheUpdateReport update(std::vector<KernelTuningCacheEntry> incoming,
                                     const KernelTuningCacheOptions& options) {
  KernelTuningCacheUpdateReport report;
  Result<std::filesystem::path> path = cache_support::resolve_path(options);
  if (!path.ok()) return failed(std::move(report), path.error());
  report.path = *path;

  const RegisteredSchemas schemas(cache_support::registry_of(options).snapshot());
  for (const KernelTuningCacheEntry& entry : incoming) {
    if (Error e = check_incoming(entry, schemas, options.allow_unregistered_keys); e.is_bad()) {
      report.rejected.push_back(ref(entry, e.message()));
    }
  }
  if (!report.rejected.empty()) {
    report.status = Status::REJECTED;
    report.error = Error(ErrorCode::INVALID_VALUE, fmt::format("{} of {} profiles rejected; first: {}",
                                                               report.rejected.size(), incoming.size(),
                                                               report.rejected.front().reason));
    log::warn("cache: nothing written to {}: {}", report.path.string(), report.error.message());
    return report;
  }
  // One entry per complete key; the later of two wins.
  std::map<KernelTuningCacheEntryKey, std::size_t> incoming_index;
  std::vector<KernelTuningCacheEntry> unique;
  for (KernelTuningCacheEntry& entry : incoming) {
    auto [found, inserted] = incoming_index.emplace(entry.complete_key(), unique.size());
    if (inserted) {
      unique.push_back(std::move(entry));
    } else {
      unique[found->second] = std::move(entry);
    }
  }
  if (options.read_only) {
    report.status = Status::READ_ONLY;
    log::info("cache: read-only; {} profiles not written to {}", unique.size(), report.path.string());
    return report;
  }

  const std::optional<platform::CpuExecutionDescriptor> execution =
      options.prune_execution_mismatch ? std::optional(cache_support::current_execution(options)) : std::nullopt;
  auto merge = [&](const std::optional<std::string>& existing) -> Result<store::UpdatePlan> {
    store::UpdatePlan plan;
    std::vector<KernelTuningCacheEntry> stored;
    if (existing) {
      auto read = read_stored(*existing, report, plan.move_aside);
      if (!read.ok()) return read.error();
      stored = std::move(*read);
    }
    plan.contents = format_kernel_tuning_cache(merge_entries(std::move(stored), std::move(unique), schemas, execution,
                                                             options, report));
    return plan;
  };
  store::LockedUpdateOptions update;
  update.lock_timeout = options.lock_timeout;
  update.log_prefix = "cache:";
  update.before_rename = options.before_rename;
  Result<store::LockedUpdateOutcome> outcome = store::update_file_locked(report.path, merge, update);
  if (!outcome.ok()) return failed(std::move(report), outcome.error());
  if (outcome->moved_aside) {
    report.moved_aside = outcome->moved_aside;
    log::warn("cache: moved the unparsable cache {} to {}", report.path.string(), outcome->moved_aside->string());
  }
  report.status = outcome->status == store::LockedUpdateOutcome::Status::UNCHANGED ? Status::UNCHANGED : Status::WRITTEN;
  log::info("cache: {}", report.summary());
  return report;
}

}  // namespace

KernelTuningCacheUpdateReport UpdateKernelTuningCache(std::span<const CalibratedKernelProfile> profiles,
                                                      const KernelTuningCacheOptions& options) {
  std::vector<KernelTuningCacheEntry> entries;
  entries.reserve(profiles.size());
  for (const CalibratedKernelProfile& profile : profiles) entries.push_back(KernelTuningCacheEntry::from_profile(profile));
  return update(std::move(entries), options);
}

KernelTuningCacheUpdateReport MergeKernelTuningCacheEntries(std::span<const KernelTuningCacheEntry> entries,
                                                            const KernelTuningCacheOptions& options) {
  return update(std::vector<KernelTuningCacheEntry>(entries.begin(), entries.end()), options);
}

}  // namespace tunekit::tuning
