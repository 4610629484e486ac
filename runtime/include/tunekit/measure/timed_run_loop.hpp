// The timed iteration loop shared by autotune and calibration. It is a pure
// function over an injected "time once" callable: device timers and events
// live in the caller's callable, so every strategy is tested with scripted
// timings on the host.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/measure/measure_config.hpp"

namespace tunekit::measure {

// Runs the candidate once and returns its time in milliseconds, or the
// error that stopped it. Receives the 0-based timed iteration index.
using TimeOnce = std::function<Result<double>(int iteration)>;

// What one accepted timed iteration produced, for progress logging.
struct IterationProgress {
  int iteration = 0;        // 0-based
  double sample_ms = 0.0;
  // Coefficient of variation of the last window_size samples under
  // RUN_UNTIL_STABLE; NaN before window_size samples exist and under FIXED_AVERAGE.
  double window_cov = 0.0;
};
using ProgressCallback = std::function<void(const IterationProgress& progress)>;

struct MeasureOutcome {
  std::vector<double> samples;  // accepted samples in milliseconds, in order
  // Calls made to time_once, including one that failed or returned a
  // rejected sample (so it can exceed samples.size() by one).
  int iterations_run = 0;
  // FIXED_AVERAGE: true when every iteration succeeded. RUN_UNTIL_STABLE: true
  // only when the stability test passed. Always false on failure.
  bool converged = false;
  bool failed = false;
  ErrorCode error_code = ErrorCode::OK;  // INVALID_VALUE for a bad config, else the sample's error
  std::string message;                   // why it failed; empty on success
  // Over samples (also the accepted ones before a failure); 0 when there are none.
  double min_ms = 0.0;
  double avg_ms = 0.0;
  double stddev_ms = 0.0;  // population: divides by N
};

// Times with config's strategy. Rejects NaN, infinite and negative samples as
// failures; a failure stops the loop. An invalid config (see validate) or an
// empty time_once fails without calling time_once. Exceptions thrown by
// time_once or on_progress propagate unchanged.
MeasureOutcome run_timed_loop(const MeasureConfig& config, const TimeOnce& time_once,
                              const ProgressCallback& on_progress = {});

// Runs execute `iterations` times, untimed, stopping at the first failure,
// which is returned with the iteration named in its message. Negative
// iterations or an empty execute give INVALID_VALUE without running anything.
Error run_warmup(int iterations, const std::function<Error()>& execute);

}  // namespace tunekit::measure
