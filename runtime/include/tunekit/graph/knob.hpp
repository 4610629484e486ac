// Engine knobs: typed, bounded settings an engine exposes (tile size, split
// factor, algorithm name). A Knob describes one; a KnobSetting sets one; the
// resolved KnobValues an engine compiles with always hold every knob.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/core/value.hpp"

namespace tunekit::graph {

// The knob that tells an engine to prime its internal caches. Engines that
// expose it support EXHAUSTIVE autotuning.
inline constexpr std::string_view kBenchmarkingKnob = "global.benchmarking";

enum class KnobType { INT, DOUBLE, STRING };
std::string_view to_string(KnobType type) noexcept;  // "int", "double", "string"
std::optional<KnobType> parse_knob_type(std::string_view name) noexcept;

using KnobValue = Value;  // holds int64, double or string for knobs

struct Knob {
  std::string id;  // "tile_m", "global.benchmarking"
  KnobType type = KnobType::INT;
  KnobValue default_value = std::int64_t{0};
  std::optional<KnobValue> min_value;  // inclusive; INT and DOUBLE only
  std::optional<KnobValue> max_value;  // inclusive; INT and DOUBLE only
  // INT: a valid value is min_value (or 0) plus a multiple of step. Unset or 0: any.
  std::optional<std::int64_t> step;
  std::vector<KnobValue> allowed_values;  // non-empty: the value must be one of these
  std::string description;

  friend bool operator==(const Knob&, const Knob&) = default;
};

struct KnobSetting {
  std::string knob_id;
  KnobValue value;
  friend bool operator==(const KnobSetting&, const KnobSetting&) = default;
};

// A STRING knob that takes one of `values`, the first its default.
Knob choice_knob(std::string id, const std::vector<std::string>& values, std::string description);

// Checks that a knob's own description is coherent (default in range, types
// agree). Engine registration rejects engines with incoherent knobs.
Error validate_knob(const Knob& knob);

// Converts value to the knob's type where that is lossless (an integer for a
// DOUBLE knob becomes a double) and checks type, bounds, step and allowed
// values. INVALID_VALUE names the knob and the value.
Result<KnobValue> normalize_knob_value(const Knob& knob, const KnobValue& value);

// Settings sorted by knob id, so that order never matters for equality.
std::vector<KnobSetting> canonical_knob_settings(std::vector<KnobSetting> settings);
// "tile_m=64, algo=\"fast\"" in canonical order; "defaults" when empty.
std::string describe_knob_settings(const std::vector<KnobSetting>& settings);

// Every knob of an engine with its value: the defaults, overridden by settings.
class KnobValues {
 public:
  KnobValues() = default;
  using Map = std::map<std::string, KnobValue, std::less<>>;
  explicit KnobValues(Map values) : values_(std::move(values)) {}

  const Map& values() const noexcept { return values_; }
  bool contains(std::string_view id) const;
  // The typed value, or fallback when the knob is absent or of another type.
  std::int64_t get_int(std::string_view id, std::int64_t fallback = 0) const;
  double get_double(std::string_view id, double fallback = 0.0) const;
  std::string get_string(std::string_view id, std::string fallback = {}) const;
  void set(std::string id, KnobValue value) { values_[std::move(id)] = std::move(value); }

  friend bool operator==(const KnobValues&, const KnobValues&) = default;

 private:
  Map values_;
};

}  // namespace tunekit::graph
