// The values a sweep tries for one knob, and their description.
#include "tunekit/graph/knob_sweep_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

namespace tunekit::graph {
namespace {

constexpr std::uint64_t kMaxCount = std::numeric_limits<std::uint64_t>::max();

// The distance b - a of a <= b, exact in uint64 for any int64 pair.
std::uint64_t distance(std::int64_t a, std::int64_t b) noexcept {
  return static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

// a + n and a - n, for an n that keeps the result within int64 (the
// arithmetic is modular in uint64, and C++20 converts back by wrapping).
std::int64_t advance(std::int64_t a, std::uint64_t n) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + n);
}
std::int64_t retreat(std::int64_t a, std::uint64_t n) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - n);
}

// The valid values of an INT knob with both bounds: low, low + step, ..., top.
struct Grid {
  std::int64_t low = 0;
  std::int64_t top = 0;
  std::uint64_t step = 1;
  std::uint64_t last_index = 0;  // (top - low) / step

  std::uint64_t count() const noexcept { return last_index == kMaxCount ? kMaxCount : last_index + 1; }
  std::int64_t at(std::uint64_t index) const noexcept { return advance(low, index * step); }
  // The valid value nearest to v (low <= v <= the maximum), the lower one on a tie.
  std::int64_t nearest(std::int64_t v) const noexcept {
    const std::uint64_t below = distance(low, v) % step;
    const std::int64_t lower = retreat(v, below);
    if (lower == top || below <= step - below) return lower;
    return advance(lower, step);
  }
};

Grid grid_of(const Knob& knob) {
  Grid grid;
  grid.low = *knob.min_value->as_int();
  const std::int64_t high = *knob.max_value->as_int();
  grid.step = knob.step && *knob.step > 0 ? static_cast<std::uint64_t>(*knob.step) : 1;
  grid.last_index = distance(grid.low, high) / grid.step;
  grid.top = grid.at(grid.last_index);
  return grid;
}

bool has_int_range(const Knob& knob) {
  return knob.type == KnobType::INT && knob.min_value && knob.max_value && knob.min_value->as_int() &&
         knob.max_value->as_int();
}

KnobSweepValues allowed_values(const Knob& knob, KnobSweepValues sweep) {
  sweep.rule = KnobSweepRule::ALLOWED_VALUES;
  for (const KnobValue& candidate : knob.allowed_values) {
    Result<KnobValue> normalized = normalize_knob_value(knob, candidate);
    if (!normalized.ok()) continue;
    if (std::find(sweep.values.begin(), sweep.values.end(), *normalized) == sweep.values.end()) {
      sweep.values.push_back(std::move(normalized).value());
    }
  }
  sweep.valid_count = sweep.values.size();
  return sweep;
}

KnobSweepValues int_range(const Knob& knob, KnobSweepValues sweep) {
  const Grid grid = grid_of(knob);
  sweep.valid_count = grid.count();
  sweep.step = static_cast<std::int64_t>(grid.step);
  if (grid.count() <= kKnobSweepAllValuesLimit) {
    sweep.rule = KnobSweepRule::EVERY_VALUE;
    for (std::uint64_t i = 0; i <= grid.last_index; ++i) sweep.values.emplace_back(grid.at(i));
    return sweep;
  }
  sweep.rule = KnobSweepRule::SAMPLED;
  const std::int64_t high = *knob.max_value->as_int();
  std::set<std::int64_t> sample{grid.low, grid.top, sweep.default_value.as_int().value_or(grid.low)};
  for (int bit = 0; bit < 63; ++bit) {
    const std::int64_t power = std::int64_t{1} << bit;
    if (power > high) break;
    if (power >= grid.low) sample.insert(grid.nearest(power));
  }
  std::int64_t previous = grid.low;
  for (std::int64_t v : sample) {
    sweep.values.emplace_back(v);
    if (distance(previous, v) > grid.step) {
      sweep.left_out.push_back({advance(previous, grid.step), retreat(v, grid.step)});
    }
    previous = v;
  }
  return sweep;
}

std::string join_values(const std::vector<KnobValue>& values) {
  std::string text;
  for (const KnobValue& v : values) {
    if (!text.empty()) text += ", ";
    text += v.to_text();
  }
  return text;
}

std::string join_runs(const std::vector<KnobValueRun>& runs, std::int64_t step) {
  std::string text;
  for (const KnobValueRun& run : runs) {
    if (!text.empty()) text += ", ";
    if (run.first == run.last) {
      text += fmt::format("{}", run.first);
    } else if (distance(run.first, run.last) == static_cast<std::uint64_t>(step)) {
      text += fmt::format("{}, {}", run.first, run.last);
    } else {
      text += fmt::format("{}..{}", run.first, run.last);
    }
  }
  return text;
}

}  // namespace

std::string_view to_string(KnobSweepRule rule) noexcept {
  switch (rule) {
    case KnobSweepRule::ALLOWED_VALUES: return "allowed_values";
    case KnobSweepRule::EVERY_VALUE: return "every_value";
    case KnobSweepRule::SAMPLED: return "sampled";
    case KnobSweepRule::DEFAULT_ONLY: return "default_only";
  }
  return "unknown";
}

std::uint64_t KnobSweepValues::left_out_count() const noexcept {
  if (!valid_count) return 0;
  return *valid_count - std::min<std::uint64_t>(*valid_count, values.size());
}

KnobSweepValues knob_sweep_values(const Knob& knob) {
  KnobSweepValues sweep;
  sweep.knob_id = knob.id;
  Result<KnobValue> default_value = normalize_knob_value(knob, knob.default_value);
  sweep.default_value = default_value.ok() ? *default_value : knob.default_value;
  if (!knob.allowed_values.empty()) return allowed_values(knob, std::move(sweep));
  if (has_int_range(knob)) return int_range(knob, std::move(sweep));
  sweep.values.push_back(sweep.default_value);
  return sweep;
}

std::string describe_knob_sweep(const KnobSweepValues& sweep) {
  const std::string values = join_values(sweep.values);
  switch (sweep.rule) {
    case KnobSweepRule::ALLOWED_VALUES:
      return fmt::format("the {} allowed value{} ({})", sweep.values.size(), sweep.values.size() == 1 ? "" : "s",
                         values);
    case KnobSweepRule::EVERY_VALUE: return fmt::format("every value ({})", values);
    case KnobSweepRule::SAMPLED:
      return fmt::format("swept {} of {} values ({}); left out {}{} ({})", sweep.values.size(),
                         sweep.valid_count.value_or(0), values, sweep.left_out_count(),
                         sweep.step == 1 ? std::string() : fmt::format(" in steps of {}", sweep.step),
                         join_runs(sweep.left_out, sweep.step));
    case KnobSweepRule::DEFAULT_ONLY: break;
  }
  const KnobValue& v = sweep.default_value;
  const char* why = v.is_double()   ? "a double knob is not swept"
                    : v.is_string() ? "a string knob without allowed values is not swept"
                                    : "an int knob without both bounds is not swept";
  return fmt::format("only its default {} ({})", v.to_text(), why);
}

}  // namespace tunekit::graph
