// A scalar configuration value: a 64-bit integer, a double, a bool or a
// string. Types never convert into each other implicitly, so a profile that
// stores 8.0 for an integer tile size is a type error, not a silent cast.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace tunekit::core {

enum class ValueType { INT64, DOUBLE, BOOL, STRING };

std::string_view to_string(ValueType type) noexcept;  // "int64", "double", "bool", "string"
std::optional<ValueType> parse_value_type(std::string_view name) noexcept;

class Value {
 public:
  // One constructor per type; integers of any width become INT64 and string
  // literals become STRING (never BOOL through pointer conversion).
  Value() : data_(std::int64_t{0}) {}
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Value(T value) : data_(static_cast<std::int64_t>(value)) {}              // NOLINT(google-explicit-constructor)
  template <std::floating_point T>
  Value(T value) : data_(static_cast<double>(value)) {}                    // NOLINT(google-explicit-constructor)
  Value(bool value) : data_(value) {}                                      // NOLINT(google-explicit-constructor)
  Value(std::string value) : data_(std::move(value)) {}                    // NOLINT(google-explicit-constructor)
  Value(const char* value) : data_(std::string(value)) {}                  // NOLINT(google-explicit-constructor)
  Value(std::string_view value) : data_(std::string(value)) {}             // NOLINT(google-explicit-constructor)

  ValueType type() const noexcept { return static_cast<ValueType>(data_.index()); }

  bool is_int() const noexcept { return type() == ValueType::INT64; }
  bool is_double() const noexcept { return type() == ValueType::DOUBLE; }
  bool is_bool() const noexcept { return type() == ValueType::BOOL; }
  bool is_string() const noexcept { return type() == ValueType::STRING; }

  // Typed access; nullopt/nullptr when the value holds another type.
  std::optional<std::int64_t> as_int() const noexcept;
  std::optional<double> as_double() const noexcept;
  std::optional<bool> as_bool() const noexcept;
  const std::string* as_string() const noexcept;

  // Readable and round-trippable text: 64, 0.5, true, "text" (quoted).
  std::string to_text() const;

  friend bool operator==(const Value& a, const Value& b) = default;

 private:
  std::variant<std::int64_t, double, bool, std::string> data_;
};

}  // namespace tunekit::core

namespace tunekit {
using core::Value;
using core::ValueType;
}  // namespace tunekit
