// Times executions that are too short for the clock by running them in
// batches: each timed batch lasts at least a multiple of the clock's
// resolution, and the sample is the batch time divided per execution.
// The clock, the action and the synchronisation are injected, so the
// batching logic is tested with a scripted clock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/measure/timed_run_loop.hpp"

namespace tunekit::measure {

// Reads clock probes + 1 times and returns the smallest positive difference
// between consecutive reads, in the clock's unit. Returns 0 when the clock
// never advanced during the probes (or probes < 1): the resolution is then
// unknown, and BatchedSampler rejects 0, so the caller must choose a value.
double estimate_clock_resolution(const std::function<double()>& clock, int probes);

struct BatchedSamplerOptions {
  double clock_resolution_s = 0.0;  // must be positive and finite
  // Each timed batch must last at least this many clock resolutions, so the
  // quantisation of the clock stays a small part of every sample.
  double resolution_multiple = 10.0;
  // Bounds calibration when an action takes no measurable time at all.
  std::int64_t max_batch_size = std::int64_t{1} << 20;
  // Starts every line the sampler logs, so that its lines belong to the
  // caller's category: "autotune: 'plan':" during autotune, "calibrate:"
  // during calibration.
  std::string log_prefix = "measure:";
};

// What calibration chose.
struct BatchCalibration {
  std::int64_t batch_size = 1;
  double batch_seconds = 0.0;  // duration of the last calibration batch
  // Batches whose times chose the size: warm-up executions and a confirming
  // first sample (see warm_up) count as rounds of one execution.
  int rounds = 0;
  // Executions run only to choose the size, beyond the warm-up and the timed
  // samples; 0 when the warm-up executions decided it.
  std::int64_t extra_executions = 0;
  bool reached_cap = false;  // max_batch_size stopped the growth before the target
};

class BatchedSampler {
 public:
  using Clock = std::function<double()>;       // seconds on a monotonic clock
  using Action = std::function<Error()>;       // runs the candidate once
  using Synchronize = std::function<Error()>;  // optional: waits for the action's work

  // synchronize runs after each batch and before the stop time is read (a
  // device sync for asynchronous work); leave it empty when actions are
  // synchronous. Bad arguments are reported by calibrate() and sample().
  BatchedSampler(Clock clock, Action action, Synchronize synchronize, BatchedSamplerOptions options);

  // Runs the warm-up: `iterations` executions, each timed alone (with its
  // synchronisation), whose times are the first calibration rounds at batch
  // size 1, so an execution long enough for the clock needs no extra runs:
  //   - the last two warm-up executions reach the target: batch size 1;
  //   - only the last one does (or there was one warm-up execution): the
  //     first timed sample confirms it and is kept when it reaches the target
  //     too; else it is dropped as a calibration round and the growth goes on;
  //   - the last one is below the target: the growth starts from its time.
  // With 0 iterations nothing runs and calibration starts from scratch.
  // Discards any earlier calibration. Negative iterations give INVALID_VALUE
  // without running; an action error stops at once, named
  // "warmup iteration <i>: ...". Option errors are returned before running.
  Error warm_up(int iterations);

  // Chooses the batch size: starts at 1 and grows (x2 while the clock does
  // not move, else by the estimate from the measured time, at most x10) until
  // one batch lasts resolution_multiple * clock_resolution_s, confirmed by a
  // second batch of the same size (one slow batch may be a cold cache), or
  // the cap is reached. Uses the times of a preceding warm_up (running the
  // confirmation itself instead of waiting for a sample); calling it again
  // recalibrates from scratch. Returns the first action, synchronisation or
  // option error.
  Error calibrate();
  const std::optional<BatchCalibration>& calibration() const noexcept;
  std::int64_t batch_size() const noexcept;  // 0 before calibration

  // Times one batch (calibrating first if needed, see warm_up for the first
  // sample confirming batch size 1) and returns milliseconds per execution.
  // An action error stops the batch at once and is returned with the
  // execution named.
  Result<double> sample();

  // A TimeOnce for run_timed_loop. It shares this sampler's state (copies of
  // a BatchedSampler do too), so it stays valid after the sampler is gone.
  TimeOnce time_once() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tunekit::measure
