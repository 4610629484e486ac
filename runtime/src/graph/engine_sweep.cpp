// Cartesian products of sweep axes and expansion of an EngineSweepSpec.
#include "tunekit/graph/engine_sweep.hpp"

#include <fmt/format.h>

#include <limits>
#include <set>

namespace tunekit::graph {

std::uint64_t cartesian_product_size(const std::vector<KnobSweepAxis>& axes) noexcept {
  std::uint64_t size = 1;
  for (const auto& axis : axes) {
    const std::uint64_t n = axis.values.size();
    if (n == 0) return 0;
    if (size > std::numeric_limits<std::uint64_t>::max() / n) return std::numeric_limits<std::uint64_t>::max();
    size *= n;
  }
  return size;
}

std::vector<std::vector<KnobSetting>> cartesian_product(const std::vector<KnobSweepAxis>& axes) {
  std::vector<std::vector<KnobSetting>> combinations;
  const std::uint64_t total = cartesian_product_size(axes);
  if (total == 0) return combinations;
  combinations.reserve(static_cast<std::size_t>(total));
  std::vector<std::size_t> position(axes.size(), 0);
  for (std::uint64_t n = 0; n < total; ++n) {
    std::vector<KnobSetting> combination;
    combination.reserve(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) combination.push_back({axes[a].knob_id, axes[a].values[position[a]]});
    combinations.push_back(std::move(combination));
    // Odometer step: the last axis varies fastest.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++position[a] < axes[a].values.size()) break;
      position[a] = 0;
    }
  }
  return combinations;
}

Result<SweepExpansion> expand_sweep(const EngineSweepSpec& spec) {
  SweepExpansion expansion;
  std::vector<KnobSweepAxis> axes;
  std::set<std::string> swept;
  for (const auto& axis : spec.axes) {
    if (axis.knob_id == kBenchmarkingKnob) {
      expansion.warnings.push_back(fmt::format(
          "engine id {}: sweep axis '{}' stripped (autotune() manages it in EXHAUSTIVE mode)", spec.engine_id,
          axis.knob_id));
      continue;
    }
    if (!swept.insert(axis.knob_id).second) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("engine id {}: knob '{}' is swept by more than one axis", spec.engine_id, axis.knob_id));
    }
    if (spec.fixed_settings.count(axis.knob_id) != 0) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("engine id {}: knob '{}' is both swept and fixed",
                                                         spec.engine_id, axis.knob_id));
    }
    if (axis.values.empty()) {
      expansion.warnings.push_back(fmt::format(
          "engine id {}: sweep axis '{}' has no values and is dropped (the knob keeps its default)", spec.engine_id,
          axis.knob_id));
      continue;
    }
    axes.push_back(axis);
  }

  const std::uint64_t total = cartesian_product_size(axes);
  if (total > kSweepErrorThreshold) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("engine id {}: the sweep produces {} plan specs, more than the limit of {}",
                             spec.engine_id, total, kSweepErrorThreshold));
  }
  if (total > kSweepWarnThreshold) {
    expansion.warnings.push_back(fmt::format("engine id {}: the sweep produces {} plan specs (more than {})",
                                             spec.engine_id, total, kSweepWarnThreshold));
  }

  std::vector<KnobSetting> fixed;
  for (const auto& [id, value] : spec.fixed_settings) {
    if (id == kBenchmarkingKnob) {
      expansion.warnings.push_back(fmt::format(
          "engine id {}: fixed setting '{}' stripped (autotune() manages it in EXHAUSTIVE mode)", spec.engine_id, id));
      continue;
    }
    fixed.push_back({id, value});
  }
  expansion.combinations = cartesian_product(axes);
  for (auto& combination : expansion.combinations) combination.insert(combination.end(), fixed.begin(), fixed.end());
  return expansion;
}

}  // namespace tunekit::graph
