// Internal: what a registry generation holds for one key, with the indexes
// that let resolution look at only the profiles that can match a processor
// (by vendor/family/model, microarchitecture or family) instead of scanning
// every registered profile.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::tuning {

struct StoredProfile {
  KernelTuningProfile profile;
  KernelTuningParameters merged;  // complete: defaults overwritten by the profile
  Specificity specificity;
  std::uint64_t sequence = 0;  // registration order, the last tie-breaker
};

struct StoredCalibrated {
  CalibratedKernelProfile profile;
  KernelTuningParameters merged;
  std::string execution_identity;
};

// A profile in one index bucket with its rank in the key's precedence order
// (0 is the most specific and highest priority).
struct RankedProfile {
  std::size_t rank;
  const StoredProfile* profile;
};

struct RegistryGeneration::KeyEntry {
  std::shared_ptr<const KernelTuningSchema> schema;
  KernelTuningParameters defaults;
  std::vector<std::shared_ptr<const StoredProfile>> profiles;  // precedence order
  std::vector<std::shared_ptr<const StoredCalibrated>> calibrated;

  std::unordered_map<std::string, std::vector<RankedProfile>> by_model;   // "vendor|family|model"
  std::unordered_map<std::string, std::vector<RankedProfile>> by_uarch;
  std::unordered_map<std::string, std::vector<RankedProfile>> by_family;  // "vendor|family"
  std::vector<RankedProfile> generic;
  std::unordered_map<std::string, const StoredCalibrated*> calibrated_by_execution;

  // Sorts the profiles into precedence order and rebuilds every index.
  void rebuild();
};

struct RegistryGeneration::Entries {
  std::unordered_map<KernelTuningKey, std::shared_ptr<const KeyEntry>, KernelTuningKeyHash> by_key;
  std::unordered_set<std::string> profile_names;
  std::unordered_set<std::string> calibrated_digests;
  std::uint64_t next_sequence = 0;
};

// A generation under construction: shares every key entry with the current
// generation until a key is edited, then edits a private copy of it.
struct RegistryGeneration::Builder {
  explicit Builder(const Entries& current) : entries(current) {}
  Entries entries;
  std::unordered_map<KernelTuningKey, std::shared_ptr<KeyEntry>, KernelTuningKeyHash> edited;
  bool unchanged = false;  // set by a change that turned out to be a no-op: nothing is published

  KeyEntry& edit(const KernelTuningKey& key) {
    auto& copy = edited[key];
    if (!copy) {
      auto& slot = entries.by_key[key];
      copy = slot ? std::make_shared<KeyEntry>(*slot) : std::make_shared<KeyEntry>();
      slot = copy;
    }
    return *copy;
  }
  const KeyEntry* find(const KernelTuningKey& key) const {
    auto it = entries.by_key.find(key);
    return it == entries.by_key.end() ? nullptr : it->second.get();
  }
};

std::string model_bucket(std::string_view vendor, std::uint32_t family, std::uint32_t model);
std::string family_bucket(std::string_view vendor, std::uint32_t family);

}  // namespace tunekit::tuning
