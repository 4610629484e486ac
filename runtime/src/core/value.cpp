// Typed access and text form of Value.
#include "tunekit/core/value.hpp"

#include <fmt/format.h>

namespace tunekit::core {

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::INT64: return "int64";
    case ValueType::DOUBLE: return "double";
    case ValueType::BOOL: return "bool";
    case ValueType::STRING: return "string";
  }
  return "unknown";
}

std::optional<ValueType> parse_value_type(std::string_view name) noexcept {
  for (ValueType type : {ValueType::INT64, ValueType::DOUBLE, ValueType::BOOL, ValueType::STRING}) {
    if (to_string(type) == name) return type;
  }
  return std::nullopt;
}

std::optional<std::int64_t> Value::as_int() const noexcept {
  if (const auto* v = std::get_if<std::int64_t>(&data_)) return *v;
  return std::nullopt;
}

std::optional<double> Value::as_double() const noexcept {
  if (const auto* v = std::get_if<double>(&data_)) return *v;
  return std::nullopt;
}

std::optional<bool> Value::as_bool() const noexcept {
  if (const auto* v = std::get_if<bool>(&data_)) return *v;
  return std::nullopt;
}

const std::string* Value::as_string() const noexcept { return std::get_if<std::string>(&data_); }

std::string Value::to_text() const {
  switch (type()) {
    case ValueType::INT64: return fmt::format("{}", *as_int());
    case ValueType::DOUBLE: {
      // Shortest text that reads back to the same double, with a decimal
      // point so it stays a double when parsed again.
      std::string text = fmt::format("{}", *as_double());
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
      return text;
    }
    case ValueType::BOOL: return *as_bool() ? "true" : "false";
    case ValueType::STRING: return fmt::format("\"{}\"", *as_string());
  }
  return {};
}

}  // namespace tunekit::core
