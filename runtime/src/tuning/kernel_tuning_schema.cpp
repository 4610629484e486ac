// Validation of tuning parameter sets against their schema.
#include "tunekit/tuning/kernel_tuning_schema.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace tunekit::tuning {
namespace {

std::optional<double> numeric(const core::Value& value) {
  if (auto i = value.as_int()) return static_cast<double>(*i);
  if (auto d = value.as_double()) return *d;
  return std::nullopt;
}

Error invalid(const KernelTuningKey& key, std::string_view message) {
  return {ErrorCode::INVALID_VALUE, fmt::format("key {}: {}", key.to_string(), message)};
}

}  // namespace

std::string KernelTuningParameters::to_string() const {
  std::string text;
  for (const auto& [name, value] : values) {
    if (!text.empty()) text += ", ";
    text += name + "=" + value.to_text();
  }
  return text;
}

std::string ParameterConstraint::to_string() const {
  switch (kind) {
    case ConstraintKind::LESS_EQUAL: return first + " <= " + second;
    case ConstraintKind::LESS: return first + " < " + second;
    case ConstraintKind::DIVIDES: return first + " divides " + second;
  }
  return {};
}

KernelTuningSchema::KernelTuningSchema(KernelTuningKey key, std::vector<ParameterSpec> parameters,
                                       std::vector<ParameterConstraint> constraints)
    : key_(std::move(key)), parameters_(std::move(parameters)), constraints_(std::move(constraints)) {}

const ParameterSpec* KernelTuningSchema::find(std::string_view name) const noexcept {
  for (const ParameterSpec& spec : parameters_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Error KernelTuningSchema::check_value(const ParameterSpec& spec, const core::Value& value) const {
  if (value.type() != spec.type) {
    return invalid(key_, fmt::format("parameter {} = {} has type {}, expected {}", spec.name,
                                     value.to_text(), core::to_string(value.type()),
                                     core::to_string(spec.type)));
  }
  if (auto number = numeric(value)) {
    if (!std::isfinite(*number)) {
      return invalid(key_, fmt::format("parameter {} = {} is not finite", spec.name, value.to_text()));
    }
    if (spec.minimum && *number < *spec.minimum) {
      return invalid(key_, fmt::format("parameter {} = {} is below the minimum {}", spec.name,
                                       value.to_text(), *spec.minimum));
    }
    if (spec.maximum && *number > *spec.maximum) {
      return invalid(key_, fmt::format("parameter {} = {} is above the maximum {}", spec.name,
                                       value.to_text(), *spec.maximum));
    }
  }
  if (spec.multiple_of) {
    if (auto i = value.as_int(); i && *i % *spec.multiple_of != 0) {
      return invalid(key_, fmt::format("parameter {} = {} is not a multiple of {}", spec.name, *i,
                                       *spec.multiple_of));
    }
  }
  if (!spec.allowed.empty()) {
    const std::string* text = value.as_string();
    bool found = false;
    for (const std::string& allowed : spec.allowed) found = found || (text && *text == allowed);
    if (!found) {
      return invalid(key_, fmt::format("parameter {} = {} is not one of [{}]", spec.name,
                                       value.to_text(), fmt::join(spec.allowed, ", ")));
    }
  }
  return Error::ok();
}

Error KernelTuningSchema::check_constraints(const std::map<std::string, core::Value>& merged) const {
  for (const ParameterConstraint& c : constraints_) {
    auto first_it = merged.find(c.first);
    auto second_it = merged.find(c.second);
    if (first_it == merged.end() || second_it == merged.end()) {
      return invalid(key_, fmt::format("constraint {} names an unknown parameter", c.to_string()));
    }
    auto a = numeric(first_it->second);
    auto b = numeric(second_it->second);
    if (!a || !b) {
      return invalid(key_, fmt::format("constraint {} needs numeric parameters", c.to_string()));
    }
    bool holds = true;
    switch (c.kind) {
      case ConstraintKind::LESS_EQUAL: holds = *a <= *b; break;
      case ConstraintKind::LESS: holds = *a < *b; break;
      case ConstraintKind::DIVIDES: {
        auto ia = first_it->second.as_int();
        auto ib = second_it->second.as_int();
        holds = ia && ib && *ia != 0 && *ib % *ia == 0;
        break;
      }
    }
    if (!holds) {
      return invalid(key_, fmt::format("inconsistent parameters: {} = {} and {} = {} violate {}",
                                       c.first, first_it->second.to_text(), c.second,
                                       second_it->second.to_text(), c.to_string()));
    }
  }
  return Error::ok();
}

Error KernelTuningSchema::validate_schema() const {
  std::set<std::string> names;
  for (const ParameterSpec& spec : parameters_) {
    if (spec.name.empty()) return invalid(key_, "a parameter has an empty name");
    if (!names.insert(spec.name).second) {
      return invalid(key_, fmt::format("parameter {} is declared twice", spec.name));
    }
    const bool is_numeric = spec.type == core::ValueType::INT64 || spec.type == core::ValueType::DOUBLE;
    if ((spec.minimum || spec.maximum) && !is_numeric) {
      return invalid(key_, fmt::format("parameter {} has bounds but type {}", spec.name,
                                       core::to_string(spec.type)));
    }
    if (spec.multiple_of && (spec.type != core::ValueType::INT64 || *spec.multiple_of <= 0)) {
      return invalid(key_, fmt::format("parameter {} has an invalid multiple_of", spec.name));
    }
    if (spec.minimum && spec.maximum && *spec.minimum > *spec.maximum) {
      return invalid(key_, fmt::format("parameter {} has minimum {} above maximum {}", spec.name,
                                       *spec.minimum, *spec.maximum));
    }
    Error e = check_value(spec, spec.portable_default);
    if (e.is_bad()) {
      return {e.code(), "portable default rejected: " + e.message()};
    }
  }
  Error e = check_constraints(defaults().values);
  if (e.is_bad()) return {e.code(), "portable defaults rejected: " + e.message()};
  return Error::ok();
}

Error KernelTuningSchema::validate(const KernelTuningParameters& parameters) const {
  if (!(parameters.key == key_)) {
    return invalid(key_, fmt::format("parameters are for another key, {}", parameters.key.to_string()));
  }
  for (const auto& [name, value] : parameters.values) {
    const ParameterSpec* spec = find(name);
    if (spec == nullptr) {
      return invalid(key_, fmt::format("unknown parameter {} = {}", name, value.to_text()));
    }
    TUNEKIT_RETURN_IF_ERROR(check_value(*spec, value));
  }
  for (const ParameterSpec& spec : parameters_) {
    if (spec.required && !parameters.values.count(spec.name)) {
      return invalid(key_, fmt::format("required parameter {} is missing", spec.name));
    }
  }
  return check_constraints(merge(parameters).values);
}

KernelTuningParameters KernelTuningSchema::defaults() const {
  KernelTuningParameters result{key_, {}};
  for (const ParameterSpec& spec : parameters_) result.values.emplace(spec.name, spec.portable_default);
  return result;
}

KernelTuningParameters KernelTuningSchema::merge(const KernelTuningParameters& overlay) const {
  KernelTuningParameters result = defaults();
  for (const auto& [name, value] : overlay.values) result.values[name] = value;
  return result;
}

}  // namespace tunekit::tuning
