// Session creation (option checks, override validation, snapshot capture)
// and resolution with session overrides on top.
#include "tunekit/tuning/tuning_session.hpp"

#include <fmt/format.h>

namespace tunekit::tuning {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

struct TuningSession::State {
  std::shared_ptr<const RegistryGeneration> generation;
  platform::CpuExecutionDescriptor execution;
  TuningSessionOptions options;
  ResolutionFilter filter;
  std::chrono::nanoseconds snapshot_time{0};
  mutable std::atomic<std::uint64_t> resolutions{0};
  mutable std::atomic<std::int64_t> resolution_nanoseconds{0};
};

// An override is valid when its own values pass the schema and when the
// complete set it produces, laid over what this session resolves for the
// key, is consistent: a profile with tile_n = 64 plus an override
// tile_m = 128 must fail here, not at a kernel's first configure().
Error TuningSession::check_override(const State& state, std::size_t index) {
  const std::vector<KernelTuningParameters>& overrides = state.options.overrides;
  const KernelTuningParameters& o = overrides[index];
  const KernelTuningSchema* schema = state.generation->schema(o.key);
  if (schema == nullptr) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("session override {}: no schema is registered for key {}", index, o.key.to_string()));
  }
  Error e = schema->validate(o);
  if (e.is_bad()) return Error(e.code(), fmt::format("session override {}: {}", index, e.message()));
  for (std::size_t j = 0; j < index; ++j) {
    if (overrides[j].key == o.key) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("session overrides {} and {} name the same key {}", j, index, o.key.to_string()));
    }
  }
  Resolution base = state.generation->resolve(o.key, state.execution, state.filter, false);
  KernelTuningParameters merged{o.key, std::move(base.parameters.values)};
  for (const auto& [name, value] : o.values) merged.values[name] = value;
  e = schema->validate(merged);
  if (e.is_bad()) {
    const std::string base_name = base.profile_name.empty() ? std::string(to_string(base.source)) : base.profile_name;
    return Error(e.code(), fmt::format("session override {} on top of {}: {}", index, base_name, e.message()));
  }
  return Error::ok();
}

Result<TuningSession> TuningSession::create(TuningSessionOptions options) {
  const int exclusive = int(options.portable_defaults_only) + int(options.profile_name.has_value()) +
                        int(options.calibrated_digest.has_value());
  if (exclusive > 1) {
    return Error(ErrorCode::INVALID_VALUE,
                 "session options: portable_defaults_only, profile_name and calibrated_digest are exclusive");
  }
  auto state = std::make_shared<State>();
  const KernelTuningRegistry& registry = options.registry ? *options.registry : KernelTuningRegistry::global();
  const Clock::time_point start = Clock::now();
  state->generation = registry.snapshot();
  state->snapshot_time = Clock::now() - start;
  state->execution = options.execution ? *options.execution : platform::detect_execution_descriptor(options.threads);

  if (options.profile_name && !state->generation->has_profile_named(*options.profile_name)) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("session options: no registered profile is named {}", *options.profile_name));
  }
  if (options.calibrated_digest && !state->generation->has_calibrated_digest(*options.calibrated_digest)) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("session options: no calibrated profile has digest {}",
                                                       *options.calibrated_digest));
  }
  state->options = std::move(options);
  state->filter.portable_defaults_only = state->options.portable_defaults_only;
  state->filter.profile_name = state->options.profile_name ? &*state->options.profile_name : nullptr;
  state->filter.calibrated_digest = state->options.calibrated_digest ? &*state->options.calibrated_digest : nullptr;
  const std::vector<KernelTuningParameters>& overrides = state->options.overrides;
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    TUNEKIT_RETURN_IF_ERROR(check_override(*state, i));
  }
  return TuningSession(std::move(state));
}

TuningSession TuningSession::Create(TuningSessionOptions options) {
  Result<TuningSession> session = create(std::move(options));
  if (!session.ok()) throw TuningError(session.error().message());
  return std::move(session).value();
}

std::uint64_t TuningSession::generation() const noexcept { return state_->generation->number(); }

const platform::CpuExecutionDescriptor& TuningSession::execution() const noexcept { return state_->execution; }

Resolution TuningSession::resolve(const KernelTuningKey& key) const { return resolve_impl(key, false); }

Resolution TuningSession::explain(const KernelTuningKey& key) const { return resolve_impl(key, true); }

Resolution TuningSession::resolve_impl(const KernelTuningKey& key, bool explain) const {
  const Clock::time_point start = Clock::now();
  Resolution resolution = state_->generation->resolve(key, state_->execution, state_->filter, explain);
  for (const KernelTuningParameters& o : state_->options.overrides) {
    if (!(o.key == key)) continue;
    for (const auto& [name, value] : o.values) resolution.parameters.values[name] = value;
    resolution.base_source = resolution.source;
    resolution.source = ResolutionSource::SESSION_OVERRIDE;
  }
  state_->resolutions.fetch_add(1, std::memory_order_relaxed);
  state_->resolution_nanoseconds.fetch_add(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count(),
      std::memory_order_relaxed);
  return resolution;
}

ResolutionStatistics TuningSession::statistics() const noexcept {
  return {state_->snapshot_time, state_->resolutions.load(std::memory_order_relaxed),
          std::chrono::nanoseconds(state_->resolution_nanoseconds.load(std::memory_order_relaxed))};
}

}  // namespace tunekit::tuning
