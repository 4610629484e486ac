// How the calibration benchmarks time configurations of one kernel against
// each other (bench_calibrated_vs_default, bench_calibration_side_by_side):
// a batched sampler per configuration, and a settling step whenever the
// configuration timed changes.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <utility>

#include "tunekit/core/result.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::bench {

// A sampler whose batches last at least min_sample_ms, its batch size chosen
// before the interleaved samples start.
inline Result<measure::BatchedSampler> ready_sampler(std::function<Error()> run, double min_sample_ms) {
  measure::BatchedSamplerOptions options;
  options.clock_resolution_s = platform::steady_clock_resolution_seconds();
  options.resolution_multiple = std::max(10.0, min_sample_ms * 1e-3 / options.clock_resolution_s);
  options.log_prefix = "bench:";
  using Clock = std::chrono::steady_clock;
  measure::BatchedSampler sampler(
      [] { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }, std::move(run), {},
      options);
  TUNEKIT_RETURN_IF_ERROR(sampler.warm_up(1));
  TUNEKIT_RETURN_IF_ERROR(sampler.calibrate());
  return sampler;
}

// Before timing a configuration other than the one timed last. The first
// parallel regions after the team size changes can stall for milliseconds
// while the OpenMP runtime rearranges its pool (seen on 2 cores with teams
// of 8 and 2 alternating), and idle workers spin for a while after a region,
// slowing a serial configuration timed next. An application runs one
// configuration, so this waits settle_ms, then runs `run` untimed 3 times.
inline Error settle(const std::function<Error()>& run, double settle_ms) {
  if (settle_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(settle_ms));
  for (int warm = 0; warm < 3; ++warm) TUNEKIT_RETURN_IF_ERROR(run());
  return Error::ok();
}

}  // namespace tunekit::bench
