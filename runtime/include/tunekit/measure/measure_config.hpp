// How a candidate is timed: the strategy (fixed number of runs, or run until
// the timings stabilise) and its iteration counts. Shared by autotune and
// calibration; validated before anything is executed.
#pragma once

#include <optional>
#include <string_view>

#include "tunekit/core/error.hpp"

namespace tunekit::measure {

enum class Strategy {
  FIXED_AVERAGE,     // exactly timed_iterations timed runs
  RUN_UNTIL_STABLE,  // until the last window_size runs agree, at most max_iterations
  RACE,              // candidates interleaved, the slower dropped (race.hpp), at most max_iterations rounds
};

// Stable names written to files and logs: "fixed_average", "run_until_stable", "race".
std::string_view to_string(Strategy strategy) noexcept;
std::optional<Strategy> parse_strategy(std::string_view name) noexcept;

struct MeasureConfig {
  Strategy strategy = Strategy::RUN_UNTIL_STABLE;
  int warmup_iterations = 1;  // untimed runs before timing starts
  int timed_iterations = 10;  // FIXED_AVERAGE only
  int max_iterations = 100;   // RUN_UNTIL_STABLE: cap on timed runs; RACE: cap on rounds
  int window_size = 3;        // RUN_UNTIL_STABLE: runs the stability test looks at
  // RUN_UNTIL_STABLE: stop once the coefficient of variation of the window is
  // strictly below this value.
  double stability_threshold = 0.05;
  // RACE: samples every candidate has before the first elimination (a
  // lone candidate is timed this many times).
  int race_min_samples = 5;
};

// INVALID_VALUE naming the first offending field and its value, or OK.
// Always: warmup_iterations >= 0. FIXED_AVERAGE: timed_iterations >= 1.
// RUN_UNTIL_STABLE: window_size >= 2, max_iterations >= window_size and
// 0 < stability_threshold < 1 (NaN rejected). RACE: race_min_samples >= 2
// and max_iterations >= race_min_samples. Fields the chosen strategy does
// not use are not checked, so switching strategy keeps the other's settings.
Error validate(const MeasureConfig& config);

}  // namespace tunekit::measure
