// Resolution inside one immutable generation: the six-step precedence of the
// specification (session overrides are applied by the session on top).
#include <fmt/format.h>

#include <algorithm>

#include "key_entry.hpp"

namespace tunekit::tuning {

std::string model_bucket(std::string_view vendor, std::uint32_t family, std::uint32_t model) {
  return fmt::format("{}|{}|{}", vendor, family, model);
}

std::string family_bucket(std::string_view vendor, std::uint32_t family) {
  return fmt::format("{}|{}", vendor, family);
}

std::string_view to_string(ResolutionSource source) noexcept {
  switch (source) {
    case ResolutionSource::SESSION_OVERRIDE: return "session_override";
    case ResolutionSource::CALIBRATED: return "calibrated";
    case ResolutionSource::EXACT_PROCESSOR: return "exact_processor";
    case ResolutionSource::PROCESSOR_GROUP: return "processor_group";
    case ResolutionSource::INSTRUCTION_SET: return "instruction_set";
    case ResolutionSource::PORTABLE_DEFAULT: return "portable_default";
  }
  return "unknown";
}

namespace {

ResolutionSource source_of(const Specificity& s) {
  switch (s.level) {
    case SpecificityLevel::EXACT_PROCESSOR: return ResolutionSource::EXACT_PROCESSOR;
    case SpecificityLevel::PROCESSOR_GROUP: return ResolutionSource::PROCESSOR_GROUP;
    case SpecificityLevel::INSTRUCTION_SET: return ResolutionSource::INSTRUCTION_SET;
    case SpecificityLevel::PORTABLE_DEFAULT: break;
  }
  return ResolutionSource::PORTABLE_DEFAULT;
}

bool allowed_by_filter(const StoredProfile& p, const ResolutionFilter& filter, std::string* reason) {
  if (filter.portable_defaults_only || filter.calibrated_digest) {
    if (reason) *reason = "session uses only " + std::string(filter.calibrated_digest ? "a calibrated digest" : "portable defaults");
    return false;
  }
  if (filter.profile_name && *filter.profile_name != p.profile.name) {
    if (reason) *reason = "session asks for profile " + *filter.profile_name;
    return false;
  }
  return true;
}

bool calibrated_allowed(const StoredCalibrated& c, const ResolutionFilter& filter, std::string* reason) {
  if (filter.portable_defaults_only) {
    if (reason) *reason = "session uses only portable defaults";
    return false;
  }
  if (filter.profile_name && *filter.profile_name != c.profile.name) {
    if (reason) *reason = "session asks for profile " + *filter.profile_name;
    return false;
  }
  if (filter.calibrated_digest && *filter.calibrated_digest != c.profile.report_digest) {
    if (reason) *reason = "session asks for calibrated digest " + *filter.calibrated_digest;
    return false;
  }
  return true;
}

}  // namespace

void RegistryGeneration::KeyEntry::rebuild() {
  std::stable_sort(profiles.begin(), profiles.end(), [](const auto& a, const auto& b) {
    if (a->specificity != b->specificity) return a->specificity > b->specificity;
    if (a->profile.priority != b->profile.priority) return a->profile.priority > b->profile.priority;
    return a->sequence < b->sequence;
  });
  by_model.clear();
  by_uarch.clear();
  by_family.clear();
  generic.clear();
  for (std::size_t rank = 0; rank < profiles.size(); ++rank) {
    const StoredProfile* p = profiles[rank].get();
    const CpuSelector& s = p->profile.selector;
    RankedProfile ranked{rank, p};
    // Each profile goes into the one bucket that every processor it can
    // match is looked up in.
    if (s.vendor && s.family && !s.models.empty()) {
      for (std::uint32_t model : s.models) by_model[model_bucket(*s.vendor, *s.family, model)].push_back(ranked);
    } else if (s.microarchitecture) {
      by_uarch[*s.microarchitecture].push_back(ranked);
    } else if (s.vendor && s.family) {
      by_family[family_bucket(*s.vendor, *s.family)].push_back(ranked);
    } else {
      generic.push_back(ranked);
    }
  }
  calibrated_by_execution.clear();
  for (const auto& c : calibrated) calibrated_by_execution[c->execution_identity] = c.get();
}

RegistryGeneration::RegistryGeneration(std::uint64_t number, std::shared_ptr<AccessCounters> counters)
    : number_(number), counters_(std::move(counters)), entries_(std::make_shared<Entries>()) {}

RegistryGeneration::~RegistryGeneration() = default;

const RegistryGeneration::KeyEntry* RegistryGeneration::find(const KernelTuningKey& key) const {
  counters_->snapshot_lookups.fetch_add(1, std::memory_order_relaxed);
  auto it = entries_->by_key.find(key);
  return it == entries_->by_key.end() ? nullptr : it->second.get();
}

std::vector<KernelTuningKey> RegistryGeneration::keys() const {
  std::vector<KernelTuningKey> result;
  for (const auto& [key, entry] : entries_->by_key) result.push_back(key);
  std::sort(result.begin(), result.end());
  return result;
}

const KernelTuningSchema* RegistryGeneration::schema(const KernelTuningKey& key) const {
  const KeyEntry* entry = find(key);
  return entry ? entry->schema.get() : nullptr;
}

bool RegistryGeneration::has_profile_named(std::string_view name) const {
  return entries_->profile_names.count(std::string(name)) > 0;
}

bool RegistryGeneration::has_calibrated_digest(std::string_view digest) const {
  return entries_->calibrated_digests.count(std::string(digest)) > 0;
}

std::vector<KernelTuningProfile> RegistryGeneration::profiles(const KernelTuningKey& key) const {
  std::vector<KernelTuningProfile> result;
  if (const KeyEntry* entry = find(key)) {
    for (const auto& p : entry->profiles) result.push_back(p->profile);
  }
  return result;
}

std::vector<CalibratedKernelProfile> RegistryGeneration::calibrated_profiles(const KernelTuningKey& key) const {
  std::vector<CalibratedKernelProfile> result;
  if (const KeyEntry* entry = find(key)) {
    for (const auto& c : entry->calibrated) result.push_back(c->profile);
  }
  return result;
}

Resolution RegistryGeneration::resolve(const KernelTuningKey& key,
                                       const platform::CpuExecutionDescriptor& execution,
                                       const ResolutionFilter& filter, bool explain) const {
  counters_->resolutions.fetch_add(1, std::memory_order_relaxed);
  Resolution result;
  result.generation = number_;
  const KeyEntry* entry = find(key);
  if (entry == nullptr) {
    result.parameters.key = key;
    return result;
  }

  // Step 2: a calibrated profile for this exact execution.
  const StoredCalibrated* calibrated = nullptr;
  if (!entry->calibrated.empty()) {
    auto it = entry->calibrated_by_execution.find(platform::execution_identity_string(execution));
    if (it != entry->calibrated_by_execution.end() && calibrated_allowed(*it->second, filter, nullptr)) {
      calibrated = it->second;
    }
  }

  // Steps 3 to 5: the best matching processor profile among the buckets
  // this processor can be in.
  const StoredProfile* best = nullptr;
  std::size_t best_rank = SIZE_MAX;
  if (calibrated == nullptr) {
    const platform::CpuDescriptor& cpu = execution.processor;
    auto scan = [&](const std::vector<RankedProfile>* bucket) {
      if (bucket == nullptr) return;
      for (const RankedProfile& candidate : *bucket) {
        if (candidate.rank >= best_rank) return;  // buckets are in rank order
        if (allowed_by_filter(*candidate.profile, filter, nullptr) &&
            matches(candidate.profile->profile.selector, execution)) {
          best = candidate.profile;
          best_rank = candidate.rank;
          return;
        }
      }
    };
    auto lookup = [](const auto& map, const std::string& bucket) -> const std::vector<RankedProfile>* {
      auto it = map.find(bucket);
      return it == map.end() ? nullptr : &it->second;
    };
    if (cpu.family && cpu.model) scan(lookup(entry->by_model, model_bucket(cpu.vendor, *cpu.family, *cpu.model)));
    if (!cpu.microarchitecture.empty()) scan(lookup(entry->by_uarch, cpu.microarchitecture));
    if (cpu.family) scan(lookup(entry->by_family, family_bucket(cpu.vendor, *cpu.family)));
    scan(&entry->generic);
  }

  if (calibrated) {
    result.parameters = calibrated->merged;
    result.source = ResolutionSource::CALIBRATED;
    result.profile_name = calibrated->profile.name;
  } else if (best) {
    result.parameters = best->merged;
    result.source = source_of(best->specificity);
    result.profile_name = best->profile.name;
  } else {
    result.parameters = entry->defaults;
    result.source = ResolutionSource::PORTABLE_DEFAULT;
  }

  if (explain) {
    for (const auto& c : entry->calibrated) {
      if (c.get() == calibrated) continue;
      std::string reason;
      if (!calibrated_allowed(*c, filter, &reason)) {
      } else if (c->execution_identity != platform::execution_identity_string(execution)) {
        reason = "measured for another execution: " + c->execution_identity;
      } else {
        reason = "outranked by " + result.profile_name;
      }
      result.rejected.push_back({c->profile.name, ResolutionSource::CALIBRATED, reason});
    }
    for (const auto& p : entry->profiles) {
      if (p.get() == best) continue;
      std::string reason;
      if (!allowed_by_filter(*p, filter, &reason)) {
      } else if (!matches(p->profile.selector, execution, &reason)) {
      } else {
        reason = "outranked by " + result.profile_name;
      }
      result.rejected.push_back({p->profile.name, source_of(p->specificity), reason});
    }
  }
  return result;
}

std::string Resolution::to_string() const {
  std::string text = fmt::format("source: {}\n", tuning::to_string(source));
  if (base_source) text += fmt::format("overrides applied on: {}\n", tuning::to_string(*base_source));
  text += fmt::format("profile: {}\ngeneration: {}\nkey: {}\n",
                      profile_name.empty() ? "(portable defaults)" : profile_name, generation,
                      parameters.key.to_string());
  for (const auto& [name, value] : parameters.values) text += fmt::format("  {} = {}\n", name, value.to_text());
  for (const RejectedCandidate& r : rejected) {
    text += fmt::format("rejected {} ({}): {}\n", r.profile, tuning::to_string(r.source), r.reason);
  }
  return text;
}

}  // namespace tunekit::tuning
