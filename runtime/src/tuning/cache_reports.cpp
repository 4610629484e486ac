// Stable names of the cache report statuses and the one-line summaries
// (valid UTF-8 whatever bytes the path has).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "tunekit/core/utf8.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {

std::string_view to_string(KernelTuningCacheUpdateStatus status) noexcept {
  switch (status) {
    case KernelTuningCacheUpdateStatus::WRITTEN: return "written";
    case KernelTuningCacheUpdateStatus::UNCHANGED: return "unchanged";
    case KernelTuningCacheUpdateStatus::READ_ONLY: return "read_only";
    case KernelTuningCacheUpdateStatus::REJECTED: return "rejected";
    case KernelTuningCacheUpdateStatus::FAILED: return "failed";
  }
  return "unknown";
}

std::string_view to_string(KernelTuningCacheFileStatus status) noexcept {
  switch (status) {
    case KernelTuningCacheFileStatus::READ: return "read";
    case KernelTuningCacheFileStatus::NOT_FOUND: return "not_found";
    case KernelTuningCacheFileStatus::UNREADABLE: return "unreadable";
    case KernelTuningCacheFileStatus::MALFORMED: return "malformed";
    case KernelTuningCacheFileStatus::UNSUPPORTED_VERSION: return "unsupported_version";
  }
  return "unknown";
}

std::string_view to_string(KernelTuningCacheEntryStatus status) noexcept {
  switch (status) {
    case KernelTuningCacheEntryStatus::LOADED: return "loaded";
    case KernelTuningCacheEntryStatus::SKIPPED: return "skipped";
    case KernelTuningCacheEntryStatus::INCOMPATIBLE: return "incompatible";
    case KernelTuningCacheEntryStatus::STALE_ABI: return "stale_abi";
    case KernelTuningCacheEntryStatus::UNREGISTERED: return "unregistered";
    case KernelTuningCacheEntryStatus::INVALID: return "invalid";
    case KernelTuningCacheEntryStatus::DUPLICATE: return "duplicate";
  }
  return "unknown";
}

std::string KernelTuningCacheUpdateReport::summary() const {
  std::string text = fmt::format("{} {}: {} written, {} replaced, {} kept, {} pruned, {} rejected, {} dropped, "
                                 "{} preserved",
                                 to_string(status), path.string(), written.size(), replaced.size(), kept.size(),
                                 pruned.size(), rejected.size(), dropped.size(), preserved);
  if (moved_aside) text += fmt::format("; unparsable file moved to {}", moved_aside->string());
  if (error.is_bad()) text += fmt::format("; {}", error.message());
  return core::replace_invalid_utf8(text);
}

std::vector<const KernelTuningCacheEntryReport*> KernelTuningCacheLoadReport::with_status(
    KernelTuningCacheEntryStatus status) const {
  std::vector<const KernelTuningCacheEntryReport*> result;
  for (const auto& entry : entries) {
    if (entry.status == status) result.push_back(&entry);
  }
  return result;
}

std::size_t KernelTuningCacheLoadReport::count(KernelTuningCacheEntryStatus status) const {
  std::size_t n = 0;
  for (const auto& entry : entries) n += entry.status == status ? 1 : 0;
  return n;
}

std::string KernelTuningCacheLoadReport::summary() const {
  std::string text = fmt::format("{} {}", to_string(file_status), path.string());
  if (!file_reason.empty()) text += fmt::format(" ({})", file_reason);
  if (!salvage_reason.empty()) text += fmt::format(" (recovered piece by piece: {})", salvage_reason);
  std::vector<std::string> parts;
  if (std::size_t n = count(KernelTuningCacheEntryStatus::LOADED); n > 0) {
    // Entries of several thread counts load together; say how many each has.
    std::map<std::uint32_t, std::size_t> per_threads;
    for (const KernelTuningCacheEntryReport* entry : with_status(KernelTuningCacheEntryStatus::LOADED)) {
      ++per_threads[entry->effective_threads];
    }
    std::vector<std::string> counts;
    for (const auto& [threads, entries] : per_threads) {
      counts.push_back(fmt::format("{} for {} thread{}", entries, threads, threads == 1 ? "" : "s"));
    }
    parts.push_back(fmt::format("{} loaded ({})", n, fmt::join(counts, ", ")));
  }
  for (auto status : {KernelTuningCacheEntryStatus::SKIPPED, KernelTuningCacheEntryStatus::INCOMPATIBLE,
                      KernelTuningCacheEntryStatus::STALE_ABI, KernelTuningCacheEntryStatus::UNREGISTERED,
                      KernelTuningCacheEntryStatus::INVALID, KernelTuningCacheEntryStatus::DUPLICATE}) {
    if (std::size_t n = count(status); n > 0) parts.push_back(fmt::format("{} {}", n, to_string(status)));
  }
  if (!parts.empty()) text += fmt::format(": {}", fmt::join(parts, ", "));
  if (!missing.empty()) text += fmt::format("; {} registered keys missing", missing.size());
  return core::replace_invalid_utf8(text);
}

}  // namespace tunekit::tuning
