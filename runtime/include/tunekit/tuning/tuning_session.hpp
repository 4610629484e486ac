// A tuning session captures one registry generation and one execution
// descriptor when it is created. Kernels ask it once, at initialization, for
// their resolved parameters and keep an immutable typed configuration; a
// session never observes later registrations, so results are reproducible.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"
#include "tunekit/tuning/tuning_binding.hpp"

namespace tunekit::tuning {

struct TuningSessionOptions {
  // Reproducible runs: at most one of the next three.
  bool portable_defaults_only = false;
  std::optional<std::string> profile_name;       // only this registered (or calibrated) profile
  std::optional<std::string> calibrated_digest;  // only calibrated profiles from this report
  // Explicit values, applied on top of whatever resolution chose; the
  // complete set they produce is validated against the key's schema when the
  // session is created.
  std::vector<KernelTuningParameters> overrides;
  // The execution to resolve for; detected (with `threads` as the explicit
  // request) when not given.
  std::optional<platform::CpuExecutionDescriptor> execution;
  std::optional<std::uint32_t> threads;
  // The registry to capture; the global one when null.
  const KernelTuningRegistry* registry = nullptr;
};

// The one-time cost of a session's tuning, for diagnostics.
struct ResolutionStatistics {
  std::chrono::nanoseconds snapshot_time{0};
  std::uint64_t resolutions = 0;
  std::chrono::nanoseconds resolution_time{0};
};

class TuningSession {
 public:
  // Fails (INVALID_VALUE) on conflicting options, an unknown profile name or
  // digest, or an override that its schema rejects alone or together with
  // the values resolved beneath it (the error names key, parameters, values).
  static Result<TuningSession> create(TuningSessionOptions options = {});
  // The throwing twin.
  static TuningSession Create(TuningSessionOptions options = {});

  std::uint64_t generation() const noexcept;
  const platform::CpuExecutionDescriptor& execution() const noexcept;

  // The complete parameter set of a key for this session.
  Resolution resolve(const KernelTuningKey& key) const;
  // The same, with every rejected candidate and its reason.
  Resolution explain(const KernelTuningKey& key) const;

  // A typed configuration: the struct's defaults with the resolved values
  // applied. A key without a registered schema keeps the compiled defaults.
  template <typename Config>
  Result<Config> try_configure(const TuningBinding<Config>& binding, const KernelTuningKey& key) const {
    Config config{};
    Resolution resolution = resolve(key);
    if (resolution.parameters.values.empty()) return config;
    Error e = binding.try_validate_and_apply(config, resolution.parameters);
    if (e.is_bad()) return e;
    return config;
  }
  template <typename Config>
  Config configure(const TuningBinding<Config>& binding, const KernelTuningKey& key) const {
    Result<Config> config = try_configure(binding, key);
    if (!config.ok()) throw TuningError(config.error().message());
    return std::move(config).value();
  }

  ResolutionStatistics statistics() const noexcept;

 private:
  struct State;
  explicit TuningSession(std::shared_ptr<State> state) : state_(std::move(state)) {}
  static Error check_override(const State& state, std::size_t index);
  Resolution resolve_impl(const KernelTuningKey& key, bool explain) const;
  std::shared_ptr<State> state_;
};

}  // namespace tunekit::tuning
