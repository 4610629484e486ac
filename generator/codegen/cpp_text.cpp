// Identifier and literal text for generated C++.
#include "cpp_text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>

namespace tunekit::codegen {
namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string snake_case(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (is_upper(c) && i > 0 && name[i - 1] != '_') {
      const bool after_lower = is_lower(name[i - 1]);
      const bool word_after_capitals = is_upper(name[i - 1]) && i + 1 < name.size() && is_lower(name[i + 1]);
      if (after_lower || word_after_capitals) out += '_';
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string camel_case(std::string_view snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string cpp_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        // Octal escapes take at most three digits, so a following digit
        // cannot extend them (a hex escape would swallow it).
        if (byte < 0x20 || byte == 0x7f) {
          out += fmt::format("\\{:03o}", static_cast<unsigned>(byte));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string cpp_double(double value) {
  std::string text = fmt::format("{}", value);  // shortest round-trip form
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string cpp_int(std::int64_t value) {
  // -9223372036854775808 would be unary minus on a literal too large for int64.
  if (value == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807 - 1)";
  return std::to_string(value);
}

std::string cpp_value(const core::Value& value) {
  if (auto i = value.as_int()) return cpp_int(*i);
  if (auto d = value.as_double()) return cpp_double(*d);
  if (auto b = value.as_bool()) return *b ? "true" : "false";
  return cpp_string(*value.as_string());
}

std::string cpp_data_type(DataType type) { return "::tunekit::DataType::" + upper(core::to_string(type)); }

std::string cpp_device_kind(platform::DeviceKind device) {
  return "::tunekit::platform::DeviceKind::" + upper(platform::to_string(device));
}

std::string cpp_cpu_feature(platform::CpuFeature feature) {
  return "::tunekit::platform::CpuFeature::" + upper(platform::to_string(feature));
}

std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace tunekit::codegen
