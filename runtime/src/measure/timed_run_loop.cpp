// FIXED_AVERAGE and RUN_UNTIL_STABLE timing loops (and RACE of a lone
// candidate), the checks shared with the race, and the warmup loop.
#include "tunekit/measure/timed_run_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "sample_checks.hpp"
#include "tunekit/measure/statistics.hpp"

namespace tunekit::measure {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Samples are stored up front for typical counts only: a huge max_iterations
// that converges early must not allocate (or throw bad_alloc) for nothing.
constexpr int kReserveLimit = 1024;

}  // namespace

namespace detail {

// Why a sample cannot be a duration, or nullopt when it can.
std::optional<std::string> reject_reason(double sample, int iteration) {
  if (std::isnan(sample)) return fmt::format("iteration {} returned a NaN time", iteration);
  if (std::isinf(sample)) return fmt::format("iteration {} returned an infinite time ({} ms)", iteration, sample);
  if (sample < 0.0) return fmt::format("iteration {} returned a negative time ({} ms)", iteration, sample);
  return std::nullopt;
}

void fail(MeasureOutcome& outcome, ErrorCode code, std::string message) {
  outcome.failed = true;
  outcome.converged = false;
  outcome.error_code = code;
  outcome.message = std::move(message);
}

void fill_statistics(MeasureOutcome& outcome) {
  if (outcome.samples.empty()) return;
  outcome.min_ms = minimum(outcome.samples);
  outcome.avg_ms = mean(outcome.samples);
  outcome.stddev_ms = population_stddev(outcome.samples);
}

}  // namespace detail

using detail::fail;
using detail::fill_statistics;
using detail::reject_reason;

MeasureOutcome run_timed_loop(const MeasureConfig& config, const TimeOnce& time_once,
                              const ProgressCallback& on_progress) {
  MeasureOutcome outcome;
  if (Error invalid = validate(config); invalid.is_bad()) {
    fail(outcome, invalid.code(), "invalid measure config: " + invalid.message());
    return outcome;
  }
  if (!time_once) {
    fail(outcome, ErrorCode::INVALID_VALUE, "no time_once callable was given");
    return outcome;
  }

  const bool until_stable = config.strategy == Strategy::RUN_UNTIL_STABLE;
  // A race of one candidate has nobody to be compared with: its minimum samples.
  const int limit = until_stable                          ? config.max_iterations
                    : config.strategy == Strategy::RACE ? config.race_min_samples
                                                          : config.timed_iterations;
  const auto window = static_cast<std::size_t>(config.window_size);
  outcome.samples.reserve(static_cast<std::size_t>(std::min(limit, kReserveLimit)));

  for (int iteration = 0; iteration < limit; ++iteration) {
    ++outcome.iterations_run;
    Result<double> sample = time_once(iteration);
    if (!sample.ok()) {
      const Error error = sample.error();
      fail(outcome, error.code(), fmt::format("iteration {}: {}", iteration, error.message()));
      break;
    }
    if (auto reason = reject_reason(*sample, iteration)) {
      fail(outcome, ErrorCode::EXECUTION_FAILED, std::move(*reason));
      break;
    }
    outcome.samples.push_back(*sample);

    double window_cov = kNaN;
    if (until_stable && outcome.samples.size() >= window) {
      window_cov = coefficient_of_variation(std::span<const double>(outcome.samples).last(window));
    }
    if (on_progress) on_progress(IterationProgress{iteration, *sample, window_cov});
    // NaN compares false, so the test cannot pass before the window is full.
    if (window_cov < config.stability_threshold) {
      outcome.converged = true;
      break;
    }
  }

  if (!outcome.failed && !until_stable) outcome.converged = true;
  fill_statistics(outcome);
  return outcome;
}

Error run_warmup(int iterations, const std::function<Error()>& execute) {
  if (iterations < 0) {
    return {ErrorCode::INVALID_VALUE, fmt::format("warmup iterations must be at least 0, got {}", iterations)};
  }
  if (!execute) return {ErrorCode::INVALID_VALUE, "no warmup callable was given"};
  for (int iteration = 0; iteration < iterations; ++iteration) {
    Error error = execute();
    if (error.is_bad()) {
      return {error.code(), fmt::format("warmup iteration {}: {}", iteration, error.message())};
    }
  }
  return Error::ok();
}

}  // namespace tunekit::measure
