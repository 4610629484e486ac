// calibrate --isolate: every selected key is calibrated in a child process of
// its own (this same driver, selecting that one key), with a time limit. A
// crash, an abort or a hang in a kernel is that key's "not calibrated" with
// its signal or the timeout, and the other keys go on. Each child loads and
// updates the cache itself (the cache writer is safe between processes); the
// parent prints what the children printed and merges their reports and
// profiles into the files asked for.
#pragma once

#include <chrono>
#include <optional>
#include <span>

#include "calibrate_options.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/kernel_tuning_key.hpp"

namespace tunekit::cli {

// The exit code: the largest of the children's, or that of a report or
// profile that could not be written.
// A key not started by `deadline` (calibrate --total-time-budget) is not
// calibrated, counted in `not_started`, and each child's --time-budget ends
// there at the latest.
int calibrate_isolated(const CalibrateOptions& options, std::span<const tuning::KernelTuningKey> keys,
                       const platform::CpuExecutionDescriptor& execution,
                       std::optional<std::chrono::steady_clock::time_point> deadline, std::size_t& not_started);

}  // namespace tunekit::cli
