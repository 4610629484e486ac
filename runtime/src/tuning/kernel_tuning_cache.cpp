// UpdateKernelTuningCache and MergeKernelTuningCacheEntries: validate, lock,
// re-read (moving an unparsable file aside), merge by complete key, prune,
// and replace the file atomically.
#include <fmt/format.h>

#include <map>

#include "cache_support.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/platform/identity_difference.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/corrupt_file.hpp"
#include "tunekit/store/file_lock.hpp"
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

// Empty when the entry may be written; otherwise why not.
std::string check_incoming(const KernelTuningCacheEntry& entry, const RegisteredSchemas& schemas,
                           bool allow_unregistered) {
  if (std::string field = find_unwritable_field(entry); !field.empty()) return field;
  const KernelTuningKey& key = entry.parameters.key;
  const KernelTuningSchema* schema = schemas.schema(key);
  if (!schema) {
    if (allow_unregistered) return {};
    if (schemas.is_stale(key)) return fmt::format("key {}: stale tuning ABI ({})", key.to_string(), schemas.stale_reason(key));
    return fmt::format("no schema is registered for key {}", key.to_string());
  }
  if (Error e = schema->validate(entry.parameters); e.is_bad()) return e.message();
  return {};
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

KernelTuningCacheUpdateReport update(std::vector<KernelTuningCacheEntry> incoming,
                                     const KernelTuningCacheOptions& options) {
  KernelTuningCacheUpdateReport report;
  Result<std::filesystem::path> path = cache_support::resolve_path(options);
  if (!path.ok()) return failed(std::move(report), path.error());
  report.path = *path;

  const RegisteredSchemas schemas(cache_support::registry_of(options).snapshot());
  for (const KernelTuningCacheEntry& entry : incoming) {
    std::string reason = check_incoming(entry, schemas, options.allow_unregistered_keys);
    if (!reason.empty()) report.rejected.push_back(ref(entry, std::move(reason)));
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

  std::error_code ec;
  if (report.path.has_parent_path()) std::filesystem::create_directories(report.path.parent_path(), ec);
  if (ec) {
    return failed(std::move(report), Error(ErrorCode::IO_ERROR, fmt::format("cannot create folder {}: {}",
                                                                            report.path.parent_path().string(),
                                                                            ec.message())));
  }
  Result<store::FileLock> lock = store::FileLock::acquire(report.path, options.lock_timeout, store::LockMode::EXCLUSIVE);
  if (!lock.ok()) return failed(std::move(report), lock.error());

  Result<std::optional<std::string>> existing = store::read_file_if_exists(report.path);
  if (!existing.ok()) return failed(std::move(report), existing.error());
  bool move_aside = false;
  std::vector<KernelTuningCacheEntry> stored;
  if (existing->has_value()) {
    auto read = read_stored(**existing, report, move_aside);
    if (!read.ok()) return failed(std::move(report), read.error());
    stored = std::move(*read);
  }

  // Merge: stored entries first (file order), then new complete keys.
  std::map<KernelTuningCacheEntryKey, std::size_t> stored_index;
  for (std::size_t i = 0; i < stored.size(); ++i) stored_index.emplace(stored[i].complete_key(), i);
  std::vector<bool> touched(stored.size(), false);
  std::vector<KernelTuningCacheEntry> merged_new;
  for (KernelTuningCacheEntry& entry : unique) {
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

  std::optional<platform::CpuExecutionDescriptor> execution;
  if (options.prune_execution_mismatch) execution = cache_support::current_execution(options);
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

  const std::string text = format_kernel_tuning_cache(std::move(result));
  if (existing->has_value() && **existing == text && !move_aside) {
    report.status = Status::UNCHANGED;
    log::info("cache: {}", report.summary());
    return report;
  }
  if (move_aside && existing->has_value()) {
    Result<std::filesystem::path> moved = store::move_aside_corrupt(report.path);
    if (!moved.ok()) return failed(std::move(report), moved.error());
    report.moved_aside = *moved;
    log::warn("cache: moved the unparsable cache {} to {}", report.path.string(), moved->string());
  }
  store::AtomicWriteOptions write_options;
  write_options.before_rename = options.before_rename;
  if (Error e = store::write_file_atomically(report.path, text, write_options); e.is_bad()) {
    return failed(std::move(report), std::move(e));
  }
  report.status = Status::WRITTEN;
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
