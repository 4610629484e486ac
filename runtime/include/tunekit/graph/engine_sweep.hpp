// Cartesian products of knob sweep axes, with the size limits of a sweep:
// above kSweepWarnThreshold combinations per spec a warning is logged, above
// kSweepErrorThreshold the spec is rejected before anything is generated.
#pragma once

#include <cstdint>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/knob.hpp"
#include "tunekit/graph/plan_spec.hpp"

namespace tunekit::graph {

inline constexpr std::uint64_t kSweepWarnThreshold = 1'000;
inline constexpr std::uint64_t kSweepErrorThreshold = 10'000;

// Number of combinations: the product of the axis sizes, 1 for no axes,
// saturating at UINT64_MAX instead of overflowing.
std::uint64_t cartesian_product_size(const std::vector<KnobSweepAxis>& axes) noexcept;

// Every combination, the first axis varying slowest (odometer order); one
// empty combination for no axes; none when an axis is empty.
std::vector<std::vector<KnobSetting>> cartesian_product(const std::vector<KnobSweepAxis>& axes);

// What expanding a sweep spec produced.
struct SweepExpansion {
  std::vector<std::vector<KnobSetting>> combinations;  // each: the axes' values, then the fixed settings
  std::vector<std::string> warnings;                    // stripped knobs, dropped axes, large sweeps
};

// Expands one spec: strips global.benchmarking from axes and fixed settings,
// drops axes with no values (the knob takes its default), then builds the
// product merged with fixed_settings (one combination of fixed_settings only
// when no axis is left). INVALID_VALUE when the product exceeds
// kSweepErrorThreshold, when a knob is swept twice or is both swept and fixed.
Result<SweepExpansion> expand_sweep(const EngineSweepSpec& spec);

}  // namespace tunekit::graph
