// Which values of one knob an autotuning sweep (`tunekit tune`) tries, and
// which valid values it leaves out. A pure function of the knob's
// description: every valid value of a small integer range, a documented
// sample of a large one, the listed values of an enumerated knob, and only
// the default of a knob with no finite set of values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/graph/knob.hpp"

namespace tunekit::graph {

// An INT range with at most this many valid values is swept whole; a larger
// one is sampled. 16 keeps a one-knob engine at 16 candidates per shape and
// two such knobs at 256 combinations, well inside kSweepWarnThreshold, while
// covering the usual tile grids (8..128 step 8, 16..256 step 16) completely.
inline constexpr std::uint64_t kKnobSweepAllValuesLimit = 16;

enum class KnobSweepRule {
  ALLOWED_VALUES,  // the knob lists its values: each one the knob accepts, in the listed order
  EVERY_VALUE,     // an INT range of at most kKnobSweepAllValuesLimit values: all of them, ascending
  SAMPLED,         // a larger INT range: the default, both bounds and the powers of two between, ascending
  DEFAULT_ONLY,    // no finite set to draw from (DOUBLE or STRING without allowed values, INT without both bounds)
};
std::string_view to_string(KnobSweepRule rule) noexcept;  // "allowed_values", "every_value", "sampled", "default_only"

// A run of consecutive valid values of an INT range (first, first + step, ..., last).
struct KnobValueRun {
  std::int64_t first = 0;
  std::int64_t last = 0;
  friend bool operator==(const KnobValueRun&, const KnobValueRun&) = default;
};

struct KnobSweepValues {
  std::string knob_id;
  KnobSweepRule rule = KnobSweepRule::DEFAULT_ONLY;
  KnobValue default_value;        // the knob's default, of the knob's type (an int default of a DOUBLE knob converted)
  std::vector<KnobValue> values;  // what the sweep tries; always holds default_value
  // How many values the knob accepts; nullopt for DEFAULT_ONLY (unbounded or
  // continuous). Saturates at UINT64_MAX: only an INT knob over the whole
  // int64 range at step 1 has more (2^64).
  std::optional<std::uint64_t> valid_count;
  std::int64_t step = 1;              // INT ranges: the distance between valid values
  std::vector<KnobValueRun> left_out;  // SAMPLED: the valid values not tried, ascending

  // valid_count minus the values tried; 0 when valid_count is nullopt.
  std::uint64_t left_out_count() const noexcept;
};

// The values of knob that a sweep tries. The valid values of an INT knob
// with both bounds are the minimum plus multiples of the step (1 when unset
// or 0) up to the maximum; the largest of them is the upper bound that is
// tried, the maximum itself only when it is on that grid.
//
// - allowed values listed: ALLOWED_VALUES, each listed value the knob accepts
//   (normalized, duplicates and values outside the bounds or the step grid
//   dropped), however many there are: the engine chose them.
// - INT with both bounds and at most kKnobSweepAllValuesLimit valid values:
//   EVERY_VALUE.
// - INT with both bounds and more: SAMPLED. The default, the minimum, the
//   largest valid value, and each power of two 1, 2, 4, ... 2^62 within
//   [minimum, maximum]; a power of two off the step grid is replaced by the
//   nearer valid value (the lower one on a tie), so a sample keeps its
//   logarithmic spread on any grid; values that coincide are tried once.
//   Negative powers are not sampled: a negative range gets its bounds and
//   default. At most 66 values, however wide the range.
// - otherwise DEFAULT_ONLY: the default alone.
//
// Never overflows, whatever the bounds (INT64_MIN..INT64_MAX included).
// The knob must be valid (validate_knob); registered engines' knobs are.
KnobSweepValues knob_sweep_values(const Knob& knob);

// "every value (16, 32, 48, 64)", "the 3 allowed values (...)", "swept 12 of
// 1000 values (1, 2, ...); left out 988 (3, 5..7, ...)" (with "in steps of 8"
// when the step is not 1), "only its default 0.5 (a double knob is not swept)".
std::string describe_knob_sweep(const KnobSweepValues& sweep);

}  // namespace tunekit::graph
