// Internal: what the timing loops share about one sample and an outcome.
#pragma once

#include <optional>
#include <string>

#include "tunekit/measure/timed_run_loop.hpp"

namespace tunekit::measure::detail {

// Why a sample cannot be a duration, or nullopt when it can.
std::optional<std::string> reject_reason(double sample, int iteration);

// Marks the outcome failed with the code and message.
void fail(MeasureOutcome& outcome, ErrorCode code, std::string message);

// min, mean and population stddev of the accepted samples (left 0 when none).
void fill_statistics(MeasureOutcome& outcome);

}  // namespace tunekit::measure::detail
