// Knob validation and normalization, canonical settings and resolved values.
#include "tunekit/graph/knob.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tunekit::graph {
namespace {

constexpr std::array<std::pair<KnobType, std::string_view>, 3> kTypes{{
    {KnobType::INT, "int"}, {KnobType::DOUBLE, "double"}, {KnobType::STRING, "string"}}};

ValueType value_type_of(KnobType type) {
  switch (type) {
    case KnobType::INT: return ValueType::INT64;
    case KnobType::DOUBLE: return ValueType::DOUBLE;
    case KnobType::STRING: return ValueType::STRING;
  }
  return ValueType::INT64;
}

// The value as the knob's type without loss, or nullopt.
std::optional<KnobValue> convert(KnobType type, const KnobValue& value) {
  if (value.type() == value_type_of(type)) return value;
  if (type == KnobType::DOUBLE && value.is_int()) {
    const std::int64_t v = *value.as_int();
    const double d = static_cast<double>(v);
    if (static_cast<std::int64_t>(d) == v) return KnobValue(d);
  }
  return std::nullopt;
}

double as_number(const KnobValue& value) {
  if (auto i = value.as_int()) return static_cast<double>(*i);
  return value.as_double().value_or(0.0);
}

Error invalid(const Knob& knob, const std::string& what) {
  return {ErrorCode::INVALID_VALUE, fmt::format("knob '{}' {}", knob.id, what)};
}

// Type-agnostic checks of a value already converted to the knob's type.
Error check_value(const Knob& knob, const KnobValue& value) {
  if (knob.type == KnobType::DOUBLE && !std::isfinite(*value.as_double())) {
    return invalid(knob, fmt::format("must be finite, got {}", value.to_text()));
  }
  if (knob.type != KnobType::STRING) {
    if (knob.min_value && as_number(value) < as_number(*knob.min_value)) {
      return invalid(knob, fmt::format("must be at least {}, got {}", knob.min_value->to_text(), value.to_text()));
    }
    if (knob.max_value && as_number(value) > as_number(*knob.max_value)) {
      return invalid(knob, fmt::format("must be at most {}, got {}", knob.max_value->to_text(), value.to_text()));
    }
  }
  if (knob.type == KnobType::INT && knob.step && *knob.step > 0) {
    const std::int64_t base = knob.min_value ? knob.min_value->as_int().value_or(0) : 0;
    // The distance in uint64 (modular, so exact even from INT64_MIN to INT64_MAX);
    // a value below base was refused above, unless base is the implicit 0.
    const std::int64_t v = *value.as_int();
    const std::uint64_t distance = v >= base ? static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(base)
                                             : static_cast<std::uint64_t>(base) - static_cast<std::uint64_t>(v);
    if (distance % static_cast<std::uint64_t>(*knob.step) != 0) {
      return invalid(knob, fmt::format("must be {} plus a multiple of {}, got {}", base, *knob.step, value.to_text()));
    }
  }
  if (!knob.allowed_values.empty() &&
      std::find(knob.allowed_values.begin(), knob.allowed_values.end(), value) == knob.allowed_values.end()) {
    std::string allowed;
    for (const auto& candidate : knob.allowed_values) {
      if (!allowed.empty()) allowed += ", ";
      allowed += candidate.to_text();
    }
    return invalid(knob, fmt::format("must be one of [{}], got {}", allowed, value.to_text()));
  }
  return Error::ok();
}

}  // namespace

std::string_view to_string(KnobType type) noexcept {
  for (const auto& [entry, name] : kTypes) {
    if (entry == type) return name;
  }
  return "unknown";
}

std::optional<KnobType> parse_knob_type(std::string_view name) noexcept {
  for (const auto& [entry, text] : kTypes) {
    if (text == name) return entry;
  }
  return std::nullopt;
}

Knob choice_knob(std::string id, const std::vector<std::string>& values, std::string description) {
  Knob knob;
  knob.id = std::move(id);
  knob.type = KnobType::STRING;
  if (!values.empty()) knob.default_value = values.front();
  knob.allowed_values.assign(values.begin(), values.end());
  knob.description = std::move(description);
  return knob;
}

Error validate_knob(const Knob& knob) {
  if (knob.id.empty()) return {ErrorCode::INVALID_VALUE, "a knob has an empty id"};
  if (knob.type == KnobType::STRING && (knob.min_value || knob.max_value || knob.step)) {
    return invalid(knob, "is a string knob and cannot have bounds or a step");
  }
  for (const auto* bound : {&knob.min_value, &knob.max_value}) {
    if (*bound && !convert(knob.type, **bound)) {
      return invalid(knob, fmt::format("has a bound {} that is not of type {}", (*bound)->to_text(), to_string(knob.type)));
    }
  }
  if (knob.min_value && knob.max_value && as_number(*knob.min_value) > as_number(*knob.max_value)) {
    return invalid(knob, "has a minimum above its maximum");
  }
  if (knob.step && *knob.step < 0) return invalid(knob, "has a negative step");
  if (knob.step && knob.type != KnobType::INT) return invalid(knob, "has a step but is not an int knob");
  for (const auto& allowed : knob.allowed_values) {
    if (!convert(knob.type, allowed)) {
      return invalid(knob, fmt::format("allows {}, which is not of type {}", allowed.to_text(), to_string(knob.type)));
    }
  }
  Result<KnobValue> normalized = normalize_knob_value(knob, knob.default_value);
  if (!normalized.ok()) {
    return {ErrorCode::INVALID_VALUE, fmt::format("default value: {}", normalized.error().message())};
  }
  return Error::ok();
}

Result<KnobValue> normalize_knob_value(const Knob& knob, const KnobValue& value) {
  std::optional<KnobValue> converted = convert(knob.type, value);
  if (!converted) {
    return invalid(knob, fmt::format("expects a {} value, got {}", to_string(knob.type), value.to_text()));
  }
  TUNEKIT_RETURN_IF_ERROR(check_value(knob, *converted));
  return *converted;
}

std::vector<KnobSetting> canonical_knob_settings(std::vector<KnobSetting> settings) {
  std::stable_sort(settings.begin(), settings.end(),
                   [](const KnobSetting& a, const KnobSetting& b) { return a.knob_id < b.knob_id; });
  return settings;
}

std::string describe_knob_settings(const std::vector<KnobSetting>& settings) {
  if (settings.empty()) return "defaults";
  std::string text;
  for (const auto& setting : canonical_knob_settings(settings)) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}={}", setting.knob_id, setting.value.to_text());
  }
  return text;
}

bool KnobValues::contains(std::string_view id) const { return values_.find(id) != values_.end(); }

std::int64_t KnobValues::get_int(std::string_view id, std::int64_t fallback) const {
  auto it = values_.find(id);
  if (it == values_.end()) return fallback;
  return it->second.as_int().value_or(fallback);
}

double KnobValues::get_double(std::string_view id, double fallback) const {
  auto it = values_.find(id);
  if (it == values_.end()) return fallback;
  if (auto i = it->second.as_int()) return static_cast<double>(*i);
  return it->second.as_double().value_or(fallback);
}

std::string KnobValues::get_string(std::string_view id, std::string fallback) const {
  auto it = values_.find(id);
  if (it == values_.end() || !it->second.is_string()) return fallback;
  return *it->second.as_string();
}

}  // namespace tunekit::graph
