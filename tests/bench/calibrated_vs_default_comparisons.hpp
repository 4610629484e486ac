// The comparisons bench_calibrated_vs_default times for one calibrated key of
// tunekit_cpu: for every parameter whose calibrated value differs from the
// portable default, the real kernel configured with the calibrated values
// against the kernel with the portable defaults, on the sizes where the two
// configurations take different paths (calibrated_vs_default_plan.hpp) and
// one size where they agree. Parameters calibrated to their default, and
// parameters no known shape family exercises, are rows without timing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/kernel_tuning_parameters.hpp"
#include "tunekit/tuning/kernel_tuning_schema.hpp"

namespace tunekit::bench {

// The two runs of one comparison on the same operands (allocated by prepare).
struct ComparisonRuns {
  std::function<Error()> run_default, run_calibrated;
};

struct Comparison {
  std::string key;        // "Abs/float"
  std::string parameter;  // "parallel.minimum_elements"; tiles calibrated together share one row
  std::string default_value, calibrated_value;
  std::string shape;      // "n=262144", "512x512x512 A^T"; "(same path)" marks the control size
  // Empty: timed. Otherwise the text the table prints instead of times:
  // "kept (default)", or why the parameter is not timed here.
  std::string not_timed;
  // Allocates the operands (random, never all zeros) and returns both runs.
  std::function<Result<ComparisonRuns>()> prepare;
};

struct ComparisonOptions {
  // The calibration's memory budget: the Gemm shape families derive from it.
  std::size_t memory_budget_bytes = std::size_t{512} << 20;
  std::uint64_t seed = 0x7E5EC0DE;
};

// `schema` is the key's registered schema; `calibrated` the measured values
// (possibly none: every parameter is then "kept (default)"). A key of a
// family this benchmark does not know gives one row per parameter saying so.
std::vector<Comparison> comparisons_for(const tuning::KernelTuningSchema& schema,
                                        const tuning::KernelTuningParameters& calibrated,
                                        const ComparisonOptions& options);

// Side by side (bench_calibration_side_by_side): several configurations of
// one unary or binary key (each a parameter set, possibly partial: the rest
// are the defaults) on the same operands of n elements, one run each in the
// order given; NOT_SUPPORTED naming the kernel for any other key, and the
// binding's error for a parameter set it refuses.
Result<std::vector<std::function<Error()>>> elementwise_runs(
    const tuning::KernelTuningSchema& schema, const std::vector<tuning::KernelTuningParameters>& configurations,
    std::int64_t n, std::uint64_t seed);

// The sizes where those configurations take different paths: sizes_between
// each two neighbouring distinct crossover thresholds among them, and 4x the
// largest (where the parallel team's size matters). Empty for other keys.
std::vector<std::int64_t> elementwise_side_by_side_sizes(
    const tuning::KernelTuningSchema& schema, const std::vector<tuning::KernelTuningParameters>& configurations);

}  // namespace tunekit::bench
