// Batch-size calibration and batched timing over an injected clock.
#include "tunekit/measure/batched_sampler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "tunekit/core/log.hpp"

namespace tunekit::measure {
namespace {

// Aim above the target when estimating: the next batch should clear it even
// if the last measurement ran a little fast.
constexpr double kEstimateMargin = 1.25;
// Never grow more than this per round: a measurement of a few clock ticks is
// too coarse to extrapolate far from.
constexpr double kMaxGrowth = 10.0;

std::int64_t next_batch_size(std::int64_t batch, double elapsed, double target, std::int64_t cap) {
  double growth = 2.0;  // the clock did not move: nothing to estimate from
  if (elapsed > 0.0) growth = std::min(kMaxGrowth, kEstimateMargin * target / elapsed);
  // Clamped in double before converting so that the cast cannot overflow.
  const double wanted = std::ceil(static_cast<double>(batch) * growth);
  const double bounded = std::clamp(wanted, static_cast<double>(batch + 1), static_cast<double>(cap));
  return static_cast<std::int64_t>(bounded);
}

}  // namespace

double estimate_clock_resolution(const std::function<double()>& clock, int probes) {
  if (!clock || probes < 1) return 0.0;
  double smallest = 0.0;
  double previous = clock();
  for (int i = 0; i < probes; ++i) {
    const double now = clock();
    const double step = now - previous;
    if (step > 0.0 && (smallest == 0.0 || step < smallest)) smallest = step;
    previous = now;
  }
  return smallest;
}

struct BatchedSampler::State {
  Clock clock;
  Action action;
  Synchronize synchronize;
  BatchedSamplerOptions options;
  std::optional<BatchCalibration> calibration;

  Error check_arguments() const {
    if (!clock) return {ErrorCode::INVALID_VALUE, "batched sampler: no clock was given"};
    if (!action) return {ErrorCode::INVALID_VALUE, "batched sampler: no action was given"};
    const double resolution = options.clock_resolution_s;
    if (!(resolution > 0.0) || std::isinf(resolution)) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("batched sampler: clock_resolution_s must be positive and finite, got {}", resolution)};
    }
    if (!(options.resolution_multiple > 0.0) || std::isinf(options.resolution_multiple)) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("batched sampler: resolution_multiple must be positive and finite, got {}",
                          options.resolution_multiple)};
    }
    if (options.max_batch_size < 1) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("batched sampler: max_batch_size must be at least 1, got {}", options.max_batch_size)};
    }
    return Error::ok();
  }

  // Seconds taken by `batch` executions, synchronisation included.
  Result<double> time_batch(std::int64_t batch) {
    const double start = clock();
    for (std::int64_t i = 0; i < batch; ++i) {
      Error error = action();
      if (error.is_bad()) {
        return Error(error.code(), fmt::format("execution {} of a batch of {}: {}", i, batch, error.message()));
      }
    }
    if (synchronize) {
      Error error = synchronize();
      if (error.is_bad()) {
        return Error(error.code(), fmt::format("synchronize after a batch of {}: {}", batch, error.message()));
      }
    }
    const double elapsed = clock() - start;
    // Written so that NaN is caught too: a clock that is not monotonic
    // would otherwise turn into a negative or meaningless sample.
    if (!(elapsed >= 0.0)) {
      return Error(ErrorCode::EXECUTION_FAILED,
                   fmt::format("the clock went backwards or is invalid (elapsed {} s)", elapsed));
    }
    return elapsed;
  }

  Error calibrate() {
    calibration.reset();
    TUNEKIT_RETURN_IF_ERROR(check_arguments());
    const double target = options.resolution_multiple * options.clock_resolution_s;
    BatchCalibration result;
    while (true) {
      Result<double> elapsed = time_batch(result.batch_size);
      if (!elapsed.ok()) return elapsed.error();
      ++result.rounds;
      result.batch_seconds = *elapsed;
      if (*elapsed >= target) {
        // One long batch can be a cold cache or an interrupt: the size is
        // accepted only when a second batch of it also reaches the target.
        Result<double> confirm = time_batch(result.batch_size);
        if (!confirm.ok()) return confirm.error();
        ++result.rounds;
        result.batch_seconds = *confirm;
        if (*confirm >= target) break;
        elapsed = confirm;
      }
      if (result.batch_size >= options.max_batch_size) {
        result.reached_cap = true;
        break;
      }
      result.batch_size = next_batch_size(result.batch_size, *elapsed, target, options.max_batch_size);
    }
    log::debug("measure: batch size {} ({} s per batch, target {} s, {} rounds{})", result.batch_size,
               result.batch_seconds, target, result.rounds, result.reached_cap ? ", capped" : "");
    calibration = result;
    return Error::ok();
  }

  Result<double> sample() {
    if (!calibration) TUNEKIT_RETURN_IF_ERROR(calibrate());
    const std::int64_t batch = calibration->batch_size;
    Result<double> elapsed = time_batch(batch);
    if (!elapsed.ok()) return elapsed.error();
    return *elapsed * 1000.0 / static_cast<double>(batch);
  }
};

BatchedSampler::BatchedSampler(Clock clock, Action action, Synchronize synchronize,
                               BatchedSamplerOptions options)
    : state_(std::make_shared<State>(
          State{std::move(clock), std::move(action), std::move(synchronize), options, std::nullopt})) {}

Error BatchedSampler::calibrate() { return state_->calibrate(); }

const std::optional<BatchCalibration>& BatchedSampler::calibration() const noexcept {
  return state_->calibration;
}

std::int64_t BatchedSampler::batch_size() const noexcept {
  return state_->calibration ? state_->calibration->batch_size : 0;
}

Result<double> BatchedSampler::sample() { return state_->sample(); }

TimeOnce BatchedSampler::time_once() const {
  return [state = state_](int /*iteration*/) { return state->sample(); };
}

}  // namespace tunekit::measure
