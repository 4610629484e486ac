// TOML text helpers and the field reader shared by the cache and the
// deployment-profile files.
#include "toml_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tunekit::tuning::toml_support {
namespace {

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

}  // namespace

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(byte));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", value);  // shortest round-trip form
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string format_value(const core::Value& value) {
  if (auto i = value.as_int()) return std::to_string(*i);
  if (auto d = value.as_double()) return format_double(*d);
  if (auto b = value.as_bool()) return *b ? "true" : "false";
  return quote(*value.as_string());
}

std::string format_key(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  return bare ? std::string(key) : quote(key);
}

std::optional<platform::DeviceKind> parse_device_kind(std::string_view name) noexcept {
  for (platform::DeviceKind kind : {platform::DeviceKind::CPU, platform::DeviceKind::HIP}) {
    if (platform::to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

std::optional<platform::NumaPolicy> parse_numa_policy(std::string_view text) {
  const auto colon = text.find(':');
  auto kind = platform::parse_numa_policy_kind(text.substr(0, colon));
  if (!kind) return std::nullopt;
  platform::NumaPolicy policy;
  policy.kind = *kind;
  if (colon != std::string_view::npos) {
    auto nodes = platform::CpuSet::parse(text.substr(colon + 1));
    if (!nodes || nodes->empty() || *kind == platform::NumaPolicyKind::DEFAULT) return std::nullopt;
    policy.nodes = std::move(*nodes);
  }
  // Only the canonical form is accepted, so the identity read back is the one written.
  if (policy.to_string() != text) return std::nullopt;
  return policy;
}

std::string join_path(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return fmt::format("{}.{}", path, key);
}

void FieldReader::fail(const toml::node* node, std::string field, std::string message) {
  if (problem_) return;
  Problem problem{std::move(field), std::move(message)};
  if (node && node->source().begin.line > 0) {
    problem.line = node->source().begin.line + line_offset_;
    problem.column = node->source().begin.column;
  }
  problem_ = std::move(problem);
}

void FieldReader::only_keys(const toml::table& table, std::string_view path,
                            std::initializer_list<std::string_view> keys) {
  if (failed()) return;
  for (const auto& [key, node] : table) {
    if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) {
      fail(&node, join_path(path, key.str()), "unknown field");
      return;
    }
  }
}

const toml::node* FieldReader::find(const toml::table& parent, std::string_view path, std::string_view key,
                                    bool required) {
  if (failed()) return nullptr;
  const toml::node* node = parent.get(key);
  if (!node && required) fail(&parent, join_path(path, key), "missing");
  return node;
}

const toml::table* FieldReader::table(const toml::table& parent, std::string_view path, std::string_view key,
                                      bool required) {
  const toml::node* node = find(parent, path, key, required);
  if (!node) return nullptr;
  if (!node->is_table()) {
    fail(node, join_path(path, key), fmt::format("expected a table, got {}", type_name(*node)));
    return nullptr;
  }
  return node->as_table();
}

std::optional<std::string> FieldReader::string(const toml::table& parent, std::string_view path,
                                               std::string_view key, bool required, bool non_empty) {
  const toml::node* node = find(parent, path, key, required);
  if (!node) return std::nullopt;
  if (!node->is_string()) {
    fail(node, join_path(path, key), fmt::format("expected a string, got {}", type_name(*node)));
    return std::nullopt;
  }
  std::string text = node->as_string()->get();
  if (non_empty && text.empty()) {
    fail(node, join_path(path, key), "must not be empty");
    return std::nullopt;
  }
  return text;
}

std::optional<std::int64_t> FieldReader::integer(const toml::table& parent, std::string_view path,
                                                 std::string_view key, bool required, std::int64_t minimum,
                                                 std::int64_t maximum) {
  const toml::node* node = find(parent, path, key, required);
  if (!node) return std::nullopt;
  if (!node->is_integer()) {
    fail(node, join_path(path, key), fmt::format("expected an integer, got {}", type_name(*node)));
    return std::nullopt;
  }
  const std::int64_t value = node->as_integer()->get();
  if (value < minimum || value > maximum) {
    fail(node, join_path(path, key), fmt::format("{} is outside {}..{}", value, minimum, maximum));
    return std::nullopt;
  }
  return value;
}

std::optional<std::uint32_t> FieldReader::uint32(const toml::table& parent, std::string_view path,
                                                 std::string_view key, bool required, std::uint32_t minimum) {
  auto value = integer(parent, path, key, required, minimum, std::numeric_limits<std::uint32_t>::max());
  if (!value) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

std::optional<double> FieldReader::number(const toml::table& parent, std::string_view path, std::string_view key,
                                          bool required) {
  const toml::node* node = find(parent, path, key, required);
  if (!node) return std::nullopt;
  if (node->is_floating_point()) return node->as_floating_point()->get();
  if (node->is_integer()) return static_cast<double>(node->as_integer()->get());
  fail(node, join_path(path, key), fmt::format("expected a number, got {}", type_name(*node)));
  return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::string_list(const toml::table& parent, std::string_view path,
                                                                 std::string_view key, bool required) {
  const toml::node* node = find(parent, path, key, required);
  if (!node) return std::nullopt;
  const toml::array* array = node->as_array();
  if (!array) {
    fail(node, join_path(path, key), fmt::format("expected an array of strings, got {}", type_name(*node)));
    return std::nullopt;
  }
  std::vector<std::string> values;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (!element.is_string()) {
      fail(&element, fmt::format("{}[{}]", join_path(path, key), i),
           fmt::format("expected a string, got {}", type_name(element)));
      return std::nullopt;
    }
    values.push_back(element.as_string()->get());
  }
  return values;
}

std::optional<DataType> FieldReader::data_type(const toml::table& parent, std::string_view path,
                                               std::string_view key) {
  auto text = string(parent, path, key, true);
  if (!text) return std::nullopt;
  auto type = core::parse_data_type(*text);
  if (!type) fail(parent.get(key), join_path(path, key), fmt::format("unknown data type '{}'", *text));
  return type;
}

std::optional<platform::DeviceKind> FieldReader::device(const toml::table& parent, std::string_view path,
                                                        std::string_view key) {
  auto text = string(parent, path, key, true);
  if (!text) return std::nullopt;
  auto kind = parse_device_kind(*text);
  if (!kind) fail(parent.get(key), join_path(path, key), fmt::format("unknown device '{}'", *text));
  return kind;
}

std::optional<platform::CpuFeatureSet> FieldReader::features(const toml::table& parent, std::string_view path,
                                                             std::string_view key, bool required) {
  auto names = string_list(parent, path, key, required);
  if (!names) return std::nullopt;
  std::string unknown;
  auto set = platform::CpuFeatureSet::parse(*names, &unknown);
  if (!set) fail(parent.get(key), join_path(path, key), fmt::format("unknown CPU feature '{}'", unknown));
  return set;
}

std::optional<std::map<std::string, core::Value>> FieldReader::values(const toml::table& parent,
                                                                      std::string_view path, std::string_view key,
                                                                      bool required) {
  const toml::table* table = this->table(parent, path, key, required);
  if (!table) return std::nullopt;
  std::map<std::string, core::Value> values;
  const std::string table_path = join_path(path, key);
  for (const auto& [name, node] : *table) {
    const std::string field = fmt::format("{}.{}", table_path, format_key(name.str()));
    if (node.is_integer()) {
      values.emplace(std::string(name.str()), core::Value(node.as_integer()->get()));
    } else if (node.is_floating_point()) {
      values.emplace(std::string(name.str()), core::Value(node.as_floating_point()->get()));
    } else if (node.is_boolean()) {
      values.emplace(std::string(name.str()), core::Value(node.as_boolean()->get()));
    } else if (node.is_string()) {
      values.emplace(std::string(name.str()), core::Value(node.as_string()->get()));
    } else {
      fail(&node, field, fmt::format("expected an integer, float, boolean or string, got {}", type_name(node)));
      return std::nullopt;
    }
  }
  return values;
}

}  // namespace tunekit::tuning::toml_support
