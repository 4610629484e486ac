// The registry of schemas, processor profiles and calibrated profiles. It
// publishes immutable generations: every change builds a new generation and
// swaps it in atomically, so a session that captured one keeps a consistent
// view while others register, load or calibrate.
#pragma once

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "tunekit/tuning/kernel_tuning_schema.hpp"
#include "tunekit/tuning/resolution.hpp"
#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::tuning {

// Monotonic counters of registry use. A kernel's steady-state run must leave
// all three unchanged.
struct AccessCounts {
  std::uint64_t snapshots = 0;         // generations captured
  std::uint64_t snapshot_lookups = 0;  // key lookups in a captured generation
  std::uint64_t resolutions = 0;       // profile resolutions
  friend bool operator==(const AccessCounts&, const AccessCounts&) = default;
};

struct AccessCounters {
  std::atomic<std::uint64_t> snapshots{0};
  std::atomic<std::uint64_t> snapshot_lookups{0};
  std::atomic<std::uint64_t> resolutions{0};
};

// What resolution may use, set by the session options.
struct ResolutionFilter {
  bool portable_defaults_only = false;
  const std::string* profile_name = nullptr;       // only this profile
  const std::string* calibrated_digest = nullptr;  // only calibrated profiles with this digest
};

class RegistryGeneration {
 public:
  // Internal storage, defined in the implementation.
  struct KeyEntry;
  struct Entries;
  struct Builder;
  RegistryGeneration(std::uint64_t number, std::shared_ptr<AccessCounters> counters);
  ~RegistryGeneration();

  std::uint64_t number() const noexcept { return number_; }
  std::vector<KernelTuningKey> keys() const;
  // The registered schema of a key, or nullptr.
  const KernelTuningSchema* schema(const KernelTuningKey& key) const;
  // Resolves a key for an execution. `explain` also records every rejected
  // candidate. A key without a schema resolves to an empty parameter set
  // from PORTABLE_DEFAULT: the kernel keeps its compiled configuration.
  Resolution resolve(const KernelTuningKey& key, const platform::CpuExecutionDescriptor& execution,
                     const ResolutionFilter& filter = {}, bool explain = false) const;

  bool has_profile_named(std::string_view name) const;
  bool has_calibrated_digest(std::string_view digest) const;
  std::vector<KernelTuningProfile> profiles(const KernelTuningKey& key) const;
  std::vector<CalibratedKernelProfile> calibrated_profiles(const KernelTuningKey& key) const;

 private:
  friend class KernelTuningRegistry;
  const KeyEntry* find(const KernelTuningKey& key) const;

  std::uint64_t number_;
  std::shared_ptr<AccessCounters> counters_;
  std::shared_ptr<const Entries> entries_;
};

class KernelTuningRegistry {
 public:
  KernelTuningRegistry();
  KernelTuningRegistry(const KernelTuningRegistry&) = delete;
  KernelTuningRegistry& operator=(const KernelTuningRegistry&) = delete;

  // The process-wide registry used by the free functions and by sessions
  // that name no registry.
  static KernelTuningRegistry& global();

  // Registers (or replaces, when identical) the schema of a key. A schema
  // that differs from the registered one while profiles use it is rejected.
  Error try_register_schema(const KernelTuningSchema& schema);
  void register_schema(const KernelTuningSchema& schema);  // throws TuningError

  // Validates and registers profiles in one new generation: all or none.
  // Rejected: no schema for the key, invalid selector or parameters, a
  // duplicate name, or an ambiguity (equal specificity and priority that can
  // match the same processor), naming both profiles.
  Error try_register_profiles(std::vector<KernelTuningProfile> profiles);
  void register_profile(KernelTuningProfile profile);  // throws TuningError

  // Validates and publishes calibrated profiles in one new generation: all or
  // none. A calibrated profile replaces an earlier one with the same key and
  // execution identity.
  Error try_publish_calibrated(std::vector<CalibratedKernelProfile> profiles);

  // Captures the current generation (counted in access_counts()).
  std::shared_ptr<const RegistryGeneration> snapshot() const;
  std::uint64_t generation_number() const;
  AccessCounts access_counts() const noexcept;

 private:
  std::shared_ptr<const RegistryGeneration> current() const;
  void publish(std::shared_ptr<const RegistryGeneration> next);
  // Lets `change` edit a copy of the current generation (copying only the
  // keys it edits), rebuilds the edited keys' indexes and publishes the
  // result as the next generation; an error from `change` publishes nothing.
  Error change_generation(const std::function<Error(RegistryGeneration::Builder&)>& change);

  std::shared_ptr<AccessCounters> counters_;
  std::mutex writer_mutex_;  // serialises builders of new generations
  // Guards only the pointer swap and copy, never a build, so capturing a
  // snapshot never waits for a registration. (libstdc++'s
  // atomic<shared_ptr> would do, but ThreadSanitizer cannot see its lock.)
  mutable std::mutex current_mutex_;
  std::shared_ptr<const RegistryGeneration> current_;
};

// The spec's free functions, on the global registry. They throw TuningError.
void RegisterKernelTuningSchema(const KernelTuningSchema& schema);
void RegisterKernelTuningProfile(const KernelTuningKey& key, const CpuSelector& processors,
                                 KernelTuningParameters parameters, int priority,
                                 std::string name = {});

}  // namespace tunekit::tuning
