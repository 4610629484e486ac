// Registration and publication: every change validates first, builds a new
// generation from the current one (sharing untouched keys) and swaps it in.
#include "tunekit/tuning/kernel_tuning_registry.hpp"

#include <fmt/format.h>

#include "key_entry.hpp"
#include "tunekit/core/hash.hpp"

namespace tunekit::tuning {
namespace {

using Entries = RegistryGeneration::Entries;
using KeyEntry = RegistryGeneration::KeyEntry;

Error invalid(std::string message) { return {ErrorCode::INVALID_VALUE, std::move(message)}; }

std::string generated_name(const KernelTuningProfile& p) {
  return fmt::format("{}@{}#p{}", p.parameters.key.to_string(), p.selector.to_string(), p.priority);
}

std::string generated_name(const CalibratedKernelProfile& c) {
  return fmt::format("calibrated:{}@{}", c.parameters.key.to_string(),
                     core::to_hex(platform::execution_identity_signature(c.execution)));
}

// A writable copy of one key's entry inside a generation being built.
KeyEntry& mutable_entry(Entries& entries, const KernelTuningKey& key) {
  auto& slot = entries.by_key[key];
  auto copy = slot ? std::make_shared<KeyEntry>(*slot) : std::make_shared<KeyEntry>();
  slot = copy;
  return *copy;
}

}  // namespace

KernelTuningRegistry::KernelTuningRegistry()
    : counters_(std::make_shared<AccessCounters>()),
      current_(std::make_shared<const RegistryGeneration>(0, counters_)) {}

KernelTuningRegistry& KernelTuningRegistry::global() {
  static KernelTuningRegistry registry;
  return registry;
}

std::shared_ptr<const RegistryGeneration> KernelTuningRegistry::current() const {
  std::lock_guard lock(current_mutex_);
  return current_;
}

void KernelTuningRegistry::publish(std::shared_ptr<const RegistryGeneration> next) {
  std::lock_guard lock(current_mutex_);
  current_.swap(next);
}  // the replaced generation (now in `next`) is released after the lock

std::shared_ptr<const RegistryGeneration> KernelTuningRegistry::snapshot() const {
  counters_->snapshots.fetch_add(1, std::memory_order_relaxed);
  return current();
}

std::uint64_t KernelTuningRegistry::generation_number() const { return current()->number(); }

AccessCounts KernelTuningRegistry::access_counts() const noexcept {
  return {counters_->snapshots.load(std::memory_order_relaxed),
          counters_->snapshot_lookups.load(std::memory_order_relaxed),
          counters_->resolutions.load(std::memory_order_relaxed)};
}

Error KernelTuningRegistry::try_register_schema(const KernelTuningSchema& schema) {
  TUNEKIT_RETURN_IF_ERROR(schema.validate_schema());
  std::lock_guard lock(writer_mutex_);
  auto current = this->current();
  auto existing = current->entries_->by_key.find(schema.key());
  if (existing != current->entries_->by_key.end()) {
    const KeyEntry& entry = *existing->second;
    if (*entry.schema == schema) return Error::ok();
    if (!entry.profiles.empty() || !entry.calibrated.empty()) {
      return invalid(fmt::format("key {}: a different schema is already registered and profiles use it",
                                 schema.key().to_string()));
    }
  }
  auto next = std::make_shared<RegistryGeneration>(current->number() + 1, counters_);
  auto entries = std::make_shared<Entries>(*current->entries_);
  KeyEntry& entry = mutable_entry(*entries, schema.key());
  entry.schema = std::make_shared<const KernelTuningSchema>(schema);
  entry.defaults = schema.defaults();
  next->entries_ = std::move(entries);
  publish(std::move(next));
  return Error::ok();
}

void KernelTuningRegistry::register_schema(const KernelTuningSchema& schema) {
  Error e = try_register_schema(schema);
  if (e.is_bad()) throw TuningError(e.message());
}

Error KernelTuningRegistry::try_register_profiles(std::vector<KernelTuningProfile> profiles) {
  std::lock_guard lock(writer_mutex_);
  auto current = this->current();
  auto entries = std::make_shared<Entries>(*current->entries_);
  std::unordered_set<KernelTuningKey, KernelTuningKeyHash> touched;

  for (KernelTuningProfile& profile : profiles) {
    const KernelTuningKey key = profile.parameters.key;  // a copy: the profile is moved below
    if (profile.name.empty()) profile.name = generated_name(profile);
    auto found = entries->by_key.find(key);
    if (found == entries->by_key.end() || !found->second->schema) {
      return invalid(fmt::format("profile {}: no schema is registered for key {}", profile.name, key.to_string()));
    }
    Error selector_error = validate(profile.selector);
    if (selector_error.is_bad()) return invalid(fmt::format("profile {}: {}", profile.name, selector_error.message()));
    Error parameter_error = found->second->schema->validate(profile.parameters);
    if (parameter_error.is_bad()) {
      return invalid(fmt::format("profile {}: {}", profile.name, parameter_error.message()));
    }
    if (!entries->profile_names.insert(profile.name).second) {
      return invalid(fmt::format("profile {}: a profile with this name is already registered", profile.name));
    }
    auto stored = std::make_shared<StoredProfile>();
    stored->specificity = specificity(profile.selector);
    for (const auto& other : found->second->profiles) {
      if (other->specificity == stored->specificity && other->profile.priority == profile.priority &&
          may_overlap(other->profile.selector, profile.selector)) {
        return invalid(fmt::format(
            "profile {} is ambiguous with profile {}: same specificity ({}) and priority {} and "
            "both can match one processor",
            profile.name, other->profile.name, to_string(stored->specificity.level), profile.priority));
      }
    }
    stored->merged = found->second->schema->merge(profile.parameters);
    stored->sequence = entries->next_sequence++;
    stored->profile = std::move(profile);
    KeyEntry& entry = mutable_entry(*entries, key);
    entry.profiles.push_back(std::move(stored));
    touched.insert(key);
  }
  for (const KernelTuningKey& key : touched) mutable_entry(*entries, key).rebuild();

  auto next = std::make_shared<RegistryGeneration>(current->number() + 1, counters_);
  next->entries_ = std::move(entries);
  publish(std::move(next));
  return Error::ok();
}

void KernelTuningRegistry::register_profile(KernelTuningProfile profile) {
  std::vector<KernelTuningProfile> one;
  one.push_back(std::move(profile));
  Error e = try_register_profiles(std::move(one));
  if (e.is_bad()) throw TuningError(e.message());
}

Error KernelTuningRegistry::try_publish_calibrated(std::vector<CalibratedKernelProfile> profiles) {
  std::lock_guard lock(writer_mutex_);
  auto current = this->current();
  auto entries = std::make_shared<Entries>(*current->entries_);
  std::unordered_set<KernelTuningKey, KernelTuningKeyHash> touched;

  for (CalibratedKernelProfile& profile : profiles) {
    const KernelTuningKey key = profile.parameters.key;  // a copy: the profile is moved below
    if (profile.name.empty()) profile.name = generated_name(profile);
    auto found = entries->by_key.find(key);
    if (found == entries->by_key.end() || !found->second->schema) {
      return invalid(fmt::format("calibrated profile {}: no schema is registered for key {}", profile.name,
                                 key.to_string()));
    }
    Error parameter_error = found->second->schema->validate(profile.parameters);
    if (parameter_error.is_bad()) {
      return invalid(fmt::format("calibrated profile {}: {}", profile.name, parameter_error.message()));
    }
    auto stored = std::make_shared<StoredCalibrated>();
    stored->execution_identity = platform::execution_identity_string(profile.execution);
    stored->merged = found->second->schema->merge(profile.parameters);
    KeyEntry& entry = mutable_entry(*entries, key);
    // The newest measurement for an execution replaces the older one.
    std::erase_if(entry.calibrated, [&](const auto& c) {
      if (c->execution_identity != stored->execution_identity) return false;
      entries->profile_names.erase(c->profile.name);
      return true;
    });
    if (!entries->profile_names.insert(profile.name).second) {
      return invalid(fmt::format("calibrated profile {}: a profile with this name is already registered",
                                 profile.name));
    }
    if (!profile.report_digest.empty()) entries->calibrated_digests.insert(profile.report_digest);
    stored->profile = std::move(profile);
    entry.calibrated.push_back(std::move(stored));
    touched.insert(key);
  }
  for (const KernelTuningKey& key : touched) mutable_entry(*entries, key).rebuild();

  auto next = std::make_shared<RegistryGeneration>(current->number() + 1, counters_);
  next->entries_ = std::move(entries);
  publish(std::move(next));
  return Error::ok();
}

void RegisterKernelTuningSchema(const KernelTuningSchema& schema) {
  KernelTuningRegistry::global().register_schema(schema);
}

void RegisterKernelTuningProfile(const KernelTuningKey& key, const CpuSelector& processors,
                                 KernelTuningParameters parameters, int priority, std::string name) {
  parameters.key = key;
  KernelTuningRegistry::global().register_profile(
      KernelTuningProfile{std::move(name), processors, std::move(parameters), priority});
}

}  // namespace tunekit::tuning
