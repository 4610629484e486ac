// Batch-size calibration and batched timing over an injected clock.
#include "tunekit/measure/batched_sampler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

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

// The search for the batch size, kept between calls so that the first timed
// sample can confirm a size that the warm-up suggested.
struct Search {
  BatchCalibration result;     // result.batch_size is the size being tried
  std::optional<double> last;  // seconds of the last round at that size
  bool reached_once = false;   // that round reached the target; one more must confirm it
  bool done = false;
};

// Records one round at the size being tried.
void observe(Search& search, double seconds, double target) {
  ++search.result.rounds;
  search.result.batch_seconds = seconds;
  search.last = seconds;
  if (seconds >= target) {
    if (search.reached_once) search.done = true;
    search.reached_once = true;
  } else {
    search.reached_once = false;
  }
}

struct BatchedSampler::State {
  Clock clock;
  Action action;
  Synchronize synchronize;
  BatchedSamplerOptions options;
  std::optional<BatchCalibration> calibration;
  std::vector<double> warmup_seconds;  // times of the last warm-up, used by the next calibration
  std::optional<Search> awaiting_sample;  // size 1 reached the target once; the first sample confirms it

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

  double target() const { return options.resolution_multiple * options.clock_resolution_s; }

  // Synchronises, then seconds since start.
  Result<double> elapsed_since(double start, std::int64_t batch) {
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

  // Seconds taken by `batch` executions, synchronisation included.
  Result<double> time_batch(std::int64_t batch) {
    const double start = clock();
    for (std::int64_t i = 0; i < batch; ++i) {
      Error error = action();
      if (error.is_bad()) {
        return Error(error.code(), fmt::format("execution {} of a batch of {}: {}", i, batch, error.message()));
      }
    }
    return elapsed_since(start, batch);
  }

  Error warm_up(int iterations) {
    calibration.reset();
    awaiting_sample.reset();
    warmup_seconds.clear();
    if (iterations < 0) {
      return {ErrorCode::INVALID_VALUE, fmt::format("warmup iterations must be at least 0, got {}", iterations)};
    }
    TUNEKIT_RETURN_IF_ERROR(check_arguments());
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const double start = clock();
      Error error = action();
      if (error.is_bad()) {
        return {error.code(), fmt::format("warmup iteration {}: {}", iteration, error.message())};
      }
      Result<double> elapsed = elapsed_since(start, 1);
      if (!elapsed.ok()) {
        return {elapsed.error().code(), fmt::format("warmup iteration {}: {}", iteration, elapsed.error().message())};
      }
      warmup_seconds.push_back(*elapsed);
    }
    return Error::ok();
  }

  // A search whose first rounds are the last two warm-up times, if any.
  Search seeded_search() {
    Search search;
    const std::size_t n = warmup_seconds.size();
    for (std::size_t i = n >= 2 ? n - 2 : 0; i < n && !search.done; ++i) observe(search, warmup_seconds[i], target());
    warmup_seconds.clear();
    return search;
  }

  // Runs rounds until the size is settled. With pause_for_sample, stops
  // instead when only a warm-up execution has reached the target at size 1,
  // so that the first sample can confirm it without an extra execution.
  Error run_search(Search& search, bool pause_for_sample) {
    const double goal = target();
    while (!search.done) {
      BatchCalibration& result = search.result;
      if (search.last && !search.reached_once) {
        if (result.batch_size >= options.max_batch_size) {
          result.reached_cap = true;
          search.done = true;
          break;
        }
        result.batch_size = next_batch_size(result.batch_size, *search.last, goal, options.max_batch_size);
        search.last.reset();
      }
      if (pause_for_sample && search.reached_once && result.batch_size == 1 && result.extra_executions == 0) {
        return Error::ok();
      }
      Result<double> elapsed = time_batch(result.batch_size);
      if (!elapsed.ok()) return elapsed.error();
      result.extra_executions += result.batch_size;
      observe(search, *elapsed, goal);
    }
    return Error::ok();
  }

  void settle(const Search& search) {
    const BatchCalibration& r = search.result;
    if (r.extra_executions == 0 && !r.reached_cap) {
      log::debug("{} batch size 1, chosen without extra executions: single executions reach the target of {} s "
                 "(last {} s, {} rounds)",
                 options.log_prefix, target(), r.batch_seconds, r.rounds);
    } else {
      log::debug("{} batch size {} ({} s per batch, target {} s, {} rounds, {} extra executions{})", options.log_prefix,
                 r.batch_size, r.batch_seconds, target(), r.rounds, r.extra_executions,
                 r.reached_cap ? ", capped" : "");
    }
    calibration = r;
  }

  Error calibrate() {
    calibration.reset();
    awaiting_sample.reset();
    TUNEKIT_RETURN_IF_ERROR(check_arguments());
    Search search = seeded_search();
    TUNEKIT_RETURN_IF_ERROR(run_search(search, false));
    settle(search);
    return Error::ok();
  }

  // Calibrates for sample(); returns the first sample when it was the batch
  // that confirmed size 1.
  Result<std::optional<double>> calibrate_for_sample() {
    if (!awaiting_sample) {
      TUNEKIT_RETURN_IF_ERROR(check_arguments());
      Search search = seeded_search();
      TUNEKIT_RETURN_IF_ERROR(run_search(search, true));
      if (search.done) {
        settle(search);
        return std::optional<double>();
      }
      awaiting_sample = std::move(search);
    }
    Search search = std::move(*awaiting_sample);
    awaiting_sample.reset();
    Result<double> elapsed = time_batch(1);
    if (!elapsed.ok()) return elapsed.error();
    observe(search, *elapsed, target());
    if (search.done) {
      settle(search);
      return std::optional<double>(*elapsed);
    }
    // Not confirmed: that execution only told the search how to grow.
    search.result.extra_executions += 1;
    TUNEKIT_RETURN_IF_ERROR(run_search(search, false));
    settle(search);
    return std::optional<double>();
  }

  Result<double> sample() {
    if (!calibration) {
      Result<std::optional<double>> confirming = calibrate_for_sample();
      if (!confirming.ok()) return confirming.error();
      if (*confirming) return **confirming * 1000.0;
    }
    const std::int64_t batch = calibration->batch_size;
    Result<double> elapsed = time_batch(batch);
    if (!elapsed.ok()) return elapsed.error();
    return *elapsed * 1000.0 / static_cast<double>(batch);
  }
};

BatchedSampler::BatchedSampler(Clock clock, Action action, Synchronize synchronize,
                               BatchedSamplerOptions options)
    : state_(std::make_shared<State>(
          State{std::move(clock), std::move(action), std::move(synchronize), std::move(options), {}, {}, {}})) {}

Error BatchedSampler::warm_up(int iterations) { return state_->warm_up(iterations); }

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
