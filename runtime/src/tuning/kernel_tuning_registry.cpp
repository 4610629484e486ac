// Registration and publication: every change validates first, builds a new
// generation from the current one (sharing untouched keys) and swaps it in.
#include "tunekit/tuning/kernel_tuning_registry.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  return change_generation([&](RegistryGeneration::Builder& builder) -> Error {
    if (const KeyEntry* existing = builder.find(schema.key()); existing && existing->schema) {
      if (*existing->schema == schema) {
        builder.unchanged = true;  // registering the same schema again is a no-op
        return Error::ok();
      }
      if (!existing->profiles.empty() || !existing->calibrated.empty()) {
        return invalid(fmt::format("key {}: a different schema is already registered and profiles use it",
                                   schema.key().to_string()));
      }
    }
    KeyEntry& entry = builder.edit(schema.key());
    entry.schema = std::make_shared<const KernelTuningSchema>(schema);
    entry.defaults = schema.defaults();
    return Error::ok();
  });
}

void KernelTuningRegistry::register_schema(const KernelTuningSchema& schema) {
  Error e = try_register_schema(schema);
  if (e.is_bad()) throw TuningError(e.message());
}

Error KernelTuningRegistry::change_generation(const std::function<Error(RegistryGeneration::Builder&)>& change) {
  std::lock_guard lock(writer_mutex_);
  auto current = this->current();
  RegistryGeneration::Builder builder(*current->entries_);
  TUNEKIT_RETURN_IF_ERROR(change(builder));  // nothing is published on error
  if (builder.unchanged) return Error::ok();
  for (auto& [key, entry] : builder.edited) entry->rebuild();
  auto next = std::make_shared<RegistryGeneration>(current->number() + 1, counters_);
  next->entries_ = std::make_shared<const Entries>(std::move(builder.entries));
  publish(std::move(next));
  return Error::ok();
}

namespace {

// The schema registered for a profile's key inside a generation being built.
Result<const KernelTuningSchema*> schema_for(const RegistryGeneration::Builder& builder, const KernelTuningKey& key,
                                             std::string_view what, const std::string& name) {
  const KeyEntry* entry = builder.find(key);
  if (entry == nullptr || !entry->schema) {
    return invalid(fmt::format("{} {}: no schema is registered for key {}", what, name, key.to_string()));
  }
  return entry->schema.get();
}

Error validate_parameters(const KernelTuningSchema& schema, const KernelTuningParameters& parameters,
                          std::string_view what, const std::string& name) {
  Error e = schema.validate(parameters);
  return e.is_bad() ? invalid(fmt::format("{} {}: {}", what, name, e.message())) : Error::ok();
}

}  // namespace

Error KernelTuningRegistry::try_register_profiles(std::vector<KernelTuningProfile> profiles) {
  return change_generation([&](RegistryGeneration::Builder& builder) -> Error {
    Entries& entries = builder.entries;
    for (KernelTuningProfile& profile : profiles) {
      const KernelTuningKey key = profile.parameters.key;  // a copy: the profile is moved below
      if (profile.name.empty()) profile.name = generated_name(profile);
      Result<const KernelTuningSchema*> schema = schema_for(builder, key, "profile", profile.name);
      if (!schema.ok()) return schema.error();
      Error selector_error = validate(profile.selector);
      if (selector_error.is_bad()) return invalid(fmt::format("profile {}: {}", profile.name, selector_error.message()));
      TUNEKIT_RETURN_IF_ERROR(validate_parameters(**schema, profile.parameters, "profile", profile.name));
      if (!entries.profile_names.insert(profile.name).second) {
        return invalid(fmt::format("profile {}: a profile with this name is already registered", profile.name));
      }
      auto stored = std::make_shared<StoredProfile>();
      stored->specificity = specificity(profile.selector);
      KeyEntry& entry = builder.edit(key);
      for (const auto& other : entry.profiles) {
        if (other->specificity == stored->specificity && other->profile.priority == profile.priority &&
            may_overlap(other->profile.selector, profile.selector)) {
          return invalid(fmt::format(
              "profile {} is ambiguous with profile {}: same specificity ({}) and priority {} and "
              "both can match one processor",
              profile.name, other->profile.name, to_string(stored->specificity.level), profile.priority));
        }
      }
      stored->merged = (*schema)->merge(profile.parameters);
      stored->sequence = entries.next_sequence++;
      stored->profile = std::move(profile);
      entry.profiles.push_back(std::move(stored));
    }
    return Error::ok();
  });
}

void KernelTuningRegistry::register_profile(KernelTuningProfile profile) {
  std::vector<KernelTuningProfile> one;
  one.push_back(std::move(profile));
  Error e = try_register_profiles(std::move(one));
  if (e.is_bad()) throw TuningError(e.message());
}

Error KernelTuningRegistry::try_publish_calibrated(std::vector<CalibratedKernelProfile> profiles) {
  return change_generation([&](RegistryGeneration::Builder& builder) -> Error {
    Entries& entries = builder.entries;
    for (CalibratedKernelProfile& profile : profiles) {
      const KernelTuningKey key = profile.parameters.key;  // a copy: the profile is moved below
      if (profile.name.empty()) profile.name = generated_name(profile);
      Result<const KernelTuningSchema*> schema = schema_for(builder, key, "calibrated profile", profile.name);
      if (!schema.ok()) return schema.error();
      TUNEKIT_RETURN_IF_ERROR(validate_parameters(**schema, profile.parameters, "calibrated profile", profile.name));
      auto stored = std::make_shared<StoredCalibrated>();
      stored->execution_identity = platform::execution_identity_string(profile.execution);
      stored->merged = (*schema)->merge(profile.parameters);
      KeyEntry& entry = builder.edit(key);
      // The newest measurement for an execution replaces the older one.
      std::erase_if(entry.calibrated, [&](const auto& c) {
        if (c->execution_identity != stored->execution_identity) return false;
        entries.profile_names.erase(c->profile.name);
        return true;
      });
      if (!entries.profile_names.insert(profile.name).second) {
        return invalid(fmt::format("calibrated profile {}: a profile with this name is already registered",
                                   profile.name));
      }
      if (!profile.report_digest.empty()) entries.calibrated_digests.insert(profile.report_digest);
      stored->profile = std::move(profile);
      entry.calibrated.push_back(std::move(stored));
    }
    return Error::ok();
  });
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
