// Reads a tuning spec strictly: the first problem stops the parse and names
// the file, line, column and field. Values are checked with the same schema
// code that later validates profiles, so a default the spec accepts is a
// default every reader accepts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "spec_messages.hpp"
#include "spec_text.hpp"
#include "toml_support.hpp"
#include "tunekit/internal/toml_parse.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::tuning {
namespace {

using spec_messages::rule_message;
using spec_text::is_cpp_keyword;
using spec_text::LineIndex;
using spec_text::matches;
using toml_support::FieldReader;

// The one place the spec text is handed to toml++, within the input limits.
Result<toml::table> parse_spec_document(std::string_view text, const std::string& source) {
  return internal::parse_toml_document(text, source);
}

class SpecReader {
 public:
  SpecReader(std::string_view text, std::string source) : lines_(text), source_(std::move(source)) {}

  Result<TuningSpec> read(const toml::table& root);

 private:
  bool failed() const { return r_.failed(); }
  void fail(const toml::node* node, std::string field, std::string message) {
    r_.fail(node, std::move(field), std::move(message));
  }
  Error error() const {
    const toml_support::Problem& p = *r_.problem();
    // A missing top-level field has no node of its own: the file's start.
    return {ErrorCode::INVALID_VALUE, fmt::format("{}:{}:{}: {}: {}", source_, std::max<std::size_t>(p.line, 1),
                                                  std::max<std::size_t>(p.column, 1), p.field, p.message)};
  }

  std::optional<std::string> identifier(const toml::table& t, const std::string& path, std::string_view key,
                                        bool required, const char* pattern, const char* what);
  void read_implementation(const toml::table& t, const std::string& path, TuningSpec& spec);
  std::vector<TuningSpecKernel> read_kernels(const toml::table& t, const std::string& path);
  std::optional<TuningSpecParameter> read_parameter(const toml::table& t, const std::string& path,
                                                    const KernelTuningKey& key);
  std::optional<core::Value> read_value(const toml::node& node, const std::string& field, core::ValueType type);
  std::optional<double> read_bound(const toml::table& t, const std::string& path, std::string_view key,
                                   core::ValueType type);
  void read_constraints(const toml::table& t, const std::string& path, TuningSpecImplementation& implementation,
                        const KernelTuningKey& key);
  void check_new_keys(const toml::table& t, const std::string& path, const TuningSpecImplementation& implementation,
                      const TuningSpec& spec);

  LineIndex lines_;
  std::string source_;
  FieldReader r_;
};

const char* const kLowerIdentifier = "[a-z][a-z0-9_]*";
const char* const kIdentifier = "[A-Za-z_][A-Za-z0-9_]*";
const char* const kName = "[A-Za-z][A-Za-z0-9_]*";

std::optional<std::string> SpecReader::identifier(const toml::table& t, const std::string& path, std::string_view key,
                                                  bool required, const char* pattern, const char* what) {
  auto text = r_.string(t, path, key, required);
  if (text && !matches(*text, pattern)) {
    fail(t.get(key), toml_support::join_path(path, key), fmt::format("'{}' is not {}", *text, what));
    return std::nullopt;
  }
  if (text && is_cpp_keyword(*text)) {
    fail(t.get(key), toml_support::join_path(path, key), fmt::format("'{}' is a C++ keyword", *text));
    return std::nullopt;
  }
  return text;
}

std::optional<core::Value> SpecReader::read_value(const toml::node& node, const std::string& field,
                                                  core::ValueType type) {
  switch (type) {
    case core::ValueType::INT64:
      if (const auto* v = node.as_integer()) return core::Value(v->get());
      fail(&node, field, "expected an integer (type int64)");
      return std::nullopt;
    case core::ValueType::DOUBLE:
      if (const auto* v = node.as_floating_point()) return core::Value(v->get());
      fail(&node, field, "expected a float such as 2.0 (type double)");
      return std::nullopt;
    case core::ValueType::BOOL:
      if (const auto* v = node.as_boolean()) return core::Value(v->get());
      fail(&node, field, "expected true or false (type bool)");
      return std::nullopt;
    case core::ValueType::STRING:
      if (const auto* v = node.as_string()) return core::Value(v->get());
      fail(&node, field, "expected a string (type string)");
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> SpecReader::read_bound(const toml::table& t, const std::string& path, std::string_view key,
                                             core::ValueType type) {
  const toml::node* node = t.get(key);
  if (!node || failed()) return std::nullopt;
  const std::string field = toml_support::join_path(path, key);
  if (type != core::ValueType::INT64 && type != core::ValueType::DOUBLE) {
    fail(node, field, fmt::format("bounds apply to int64 and double parameters, not {}", core::to_string(type)));
    return std::nullopt;
  }
  if (type == core::ValueType::INT64 && !node->is_integer()) {
    fail(node, field, "expected an integer (the parameter is int64)");
    return std::nullopt;
  }
  auto value = r_.number(t, path, key, true);
  if (value && !std::isfinite(*value)) {
    fail(node, field, "must be finite");
    return std::nullopt;
  }
  return value;
}

std::optional<TuningSpecParameter> SpecReader::read_parameter(const toml::table& t, const std::string& path,
                                                              const KernelTuningKey& key) {
  r_.only_keys(t, path, {"name", "member", "type", "default", "minimum", "maximum", "multiple_of", "allowed",
                         "required", "description"});
  TuningSpecParameter parameter;
  ParameterSpec& spec = parameter.spec;
  parameter.line = t.source().begin.line;
  spec.name = r_.string(t, path, "name", true, true).value_or("");
  if (!failed() && !matches(spec.name, "[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*")) {
    fail(t.get("name"), path + ".name", fmt::format("'{}' is not a dotted parameter name such as parallel.minimum_elements", spec.name));
  }
  std::string member = spec.name;
  std::replace(member.begin(), member.end(), '.', '_');
  parameter.member = identifier(t, path, "member", false, kIdentifier, "a C++ identifier").value_or(member);
  if (!failed() && !t.get("member") && (!matches(parameter.member, kIdentifier) || is_cpp_keyword(parameter.member))) {
    fail(t.get("name"), path + ".name", fmt::format("'{}' does not make a C++ member name; give one in 'member'", spec.name));
  }
  auto type_name = r_.string(t, path, "type", true);
  if (type_name) {
    auto type = core::parse_value_type(*type_name);
    if (!type) fail(t.get("type"), path + ".type", fmt::format("unknown type '{}' (int64, double, bool, string)", *type_name));
    spec.type = type.value_or(core::ValueType::INT64);
  }
  spec.description = r_.string(t, path, "description", true, true).value_or("");
  if (const toml::node* node = failed() ? nullptr : t.get("default")) {
    if (auto value = read_value(*node, path + ".default", spec.type)) spec.portable_default = std::move(*value);
    parameter.default_text = lines_.range(*node);
  } else if (!failed()) {
    fail(&t, path + ".default", "missing");
  }
  spec.minimum = read_bound(t, path, "minimum", spec.type);
  spec.maximum = read_bound(t, path, "maximum", spec.type);
  if (spec.minimum && spec.maximum && *spec.minimum > *spec.maximum) {
    fail(t.get("maximum"), path + ".maximum", fmt::format("maximum {} is below the minimum {}", *spec.maximum, *spec.minimum));
  }
  if (const toml::node* node = failed() ? nullptr : t.get("multiple_of")) {
    if (spec.type != core::ValueType::INT64) {
      fail(node, path + ".multiple_of", fmt::format("multiple_of applies to int64 parameters, not {}", core::to_string(spec.type)));
    } else {
      spec.multiple_of = r_.integer(t, path, "multiple_of", true, 1, std::numeric_limits<std::int64_t>::max());
    }
  }
  if (const toml::node* node = failed() ? nullptr : t.get("allowed")) {
    if (spec.type != core::ValueType::STRING) {
      fail(node, path + ".allowed", fmt::format("allowed applies to string parameters, not {}", core::to_string(spec.type)));
    } else {
      spec.allowed = r_.string_list(t, path, "allowed", true).value_or(std::vector<std::string>{});
      std::set<std::string> unique(spec.allowed.begin(), spec.allowed.end());
      if (!failed() && (spec.allowed.empty() || unique.size() != spec.allowed.size())) {
        fail(node, path + ".allowed", "expected a non-empty list of distinct strings");
      }
    }
  }
  if (const toml::node* node = failed() ? nullptr : t.get("required")) {
    if (!node->is_boolean()) {
      fail(node, path + ".required", "expected true or false");
    } else {
      spec.required = node->as_boolean()->get();
    }
  }
  if (failed()) return std::nullopt;
  // The default against its rules, checked by the schema code itself.
  if (Error e = KernelTuningSchema(key, {spec}).validate_schema(); e.is_bad()) {
    fail(t.get("default"), path + ".default", rule_message(e, key));
    return std::nullopt;
  }
  return parameter;
}

std::vector<TuningSpecKernel> SpecReader::read_kernels(const toml::table& t, const std::string& path) {
  std::vector<TuningSpecKernel> kernels;
  const toml::table* table = r_.table(t, path, "kernels", true);
  if (!table) return kernels;
  const std::string kernels_path = path + ".kernels";
  if (table->empty()) fail(table, kernels_path, "names no kernel");
  for (const auto& [name, node] : *table) {
    if (failed()) break;
    TuningSpecKernel kernel;
    kernel.kernel = std::string(name.str());
    kernel.line = node.source().begin.line;
    const std::string field = toml_support::join_path(kernels_path, kernel.kernel);
    if (!matches(kernel.kernel, kName)) {
      fail(&node, field, fmt::format("kernel name '{}' is not letters, digits and '_' starting with a letter", kernel.kernel));
      break;
    }
    auto names = r_.string_list(*table, kernels_path, kernel.kernel, true);
    if (!names) break;
    if (names->empty()) fail(&node, field, "lists no element type");
    for (std::size_t i = 0; i < names->size() && !failed(); ++i) {
      const toml::node* element = node.as_array()->get(i);
      const std::string element_field = fmt::format("{}[{}]", field, i);
      auto type = core::parse_data_type((*names)[i]);
      if (!type) {
        fail(element, element_field, fmt::format("unknown element type '{}'", (*names)[i]));
      } else if (std::find(kernel.element_types.begin(), kernel.element_types.end(), *type) !=
                 kernel.element_types.end()) {
        fail(element, element_field, fmt::format("element type {} is listed twice", core::to_string(*type)));
      } else {
        kernel.element_types.push_back(*type);
      }
    }
    std::sort(kernel.element_types.begin(), kernel.element_types.end());
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

void SpecReader::read_constraints(const toml::table& t, const std::string& path,
                                  TuningSpecImplementation& implementation, const KernelTuningKey& key) {
  auto texts = r_.string_list(t, path, "constraints", false);
  if (!texts) return;
  const toml::array& array = *t.get("constraints")->as_array();
  std::vector<ParameterSpec> specs;
  for (const TuningSpecParameter& p : implementation.parameters) specs.push_back(p.spec);
  for (std::size_t i = 0; i < texts->size() && !failed(); ++i) {
    const toml::node* node = array.get(i);
    const std::string field = fmt::format("{}.constraints[{}]", path, i);
    std::istringstream words((*texts)[i]);
    std::string first, relation, second, rest;
    words >> first >> relation >> second >> rest;
    ParameterConstraint c{first, ConstraintKind::LESS_EQUAL, second};
    if (relation == "<") {
      c.kind = ConstraintKind::LESS;
    } else if (relation == "divides") {
      c.kind = ConstraintKind::DIVIDES;
    } else if (relation != "<=" || second.empty() || !rest.empty()) {
      fail(node, field, fmt::format("'{}' is not '<a> <= <b>', '<a> < <b>' or '<a> divides <b>'", (*texts)[i]));
      return;
    }
    for (const std::string& name : {first, second}) {
      const auto it = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.name == name; });
      if (it == specs.end()) {
        fail(node, field, fmt::format("constraint '{}' names unknown parameter '{}'", (*texts)[i], name));
        return;
      }
      const bool numeric = c.kind == ConstraintKind::DIVIDES ? it->type == core::ValueType::INT64
                                                              : it->type == core::ValueType::INT64 || it->type == core::ValueType::DOUBLE;
      if (!numeric) {
        fail(node, field, fmt::format("constraint '{}' needs {} parameters, '{}' is {}", (*texts)[i],
                                      c.kind == ConstraintKind::DIVIDES ? "int64" : "numeric", name,
                                      core::to_string(it->type)));
        return;
      }
    }
    if (Error e = KernelTuningSchema(key, specs, {c}).validate_schema(); e.is_bad()) {
      fail(node, field, rule_message(e, key));
      return;
    }
    implementation.constraints.push_back(std::move(c));
  }
}

void SpecReader::read_implementation(const toml::table& t, const std::string& path, TuningSpec& spec) {
  r_.only_keys(t, path, {"name", "implementation", "device", "description", "kernels", "constraints", "parameters"});
  TuningSpecImplementation implementation;
  implementation.line = t.source().begin.line;
  implementation.name =
      identifier(t, path, "name", true, kLowerIdentifier, "a lower-case C++ identifier such as unary_elementwise")
          .value_or("");
  implementation.implementation =
      identifier(t, path, "implementation", true, kName, "letters, digits and '_' starting with a letter").value_or("");
  if (t.get("device")) implementation.device = r_.device(t, path, "device").value_or(platform::DeviceKind::CPU);
  implementation.description = r_.string(t, path, "description", false).value_or("");
  implementation.kernels = read_kernels(t, path);
  if (failed()) return;
  check_new_keys(t, path, implementation, spec);
  if (failed()) return;

  // Rules are checked against one key of the implementation; every key of it
  // has the same parameters.
  const KernelTuningKey key = spec.key(implementation, implementation.kernels.front(),
                                       implementation.kernels.front().element_types.front());
  const toml::node* parameters = t.get("parameters");
  const toml::array* array = parameters ? parameters->as_array() : nullptr;
  if (!parameters) {
    fail(&t, path + ".parameters", "missing");
    return;
  }
  if (!array || !array->is_array_of_tables()) {
    fail(parameters, path + ".parameters", "expected an array of tables ([[implementations.parameters]])");
    return;
  }
  std::map<std::string, std::size_t> names;
  std::map<std::string, std::size_t> members;
  for (std::size_t i = 0; i < array->size() && !failed(); ++i) {
    const std::string parameter_path = fmt::format("{}.parameters[{}]", path, i);
    const toml::table& table = *array->get(i)->as_table();
    auto parameter = read_parameter(table, parameter_path, key);
    if (!parameter) return;
    if (auto [it, added] = names.emplace(parameter->spec.name, parameter->line); !added) {
      fail(table.get("name"), parameter_path + ".name",
           fmt::format("parameter '{}' is declared twice (first at line {})", parameter->spec.name, it->second));
      return;
    }
    if (auto [it, added] = members.emplace(parameter->member, parameter->line); !added) {
      fail(table.get("member") ? table.get("member") : table.get("name"), parameter_path + ".member",
           fmt::format("member '{}' is used twice (first at line {})", parameter->member, it->second));
      return;
    }
    implementation.parameters.push_back(std::move(*parameter));
  }
  read_constraints(t, path, implementation, key);
  if (failed()) return;
  for (const TuningSpecImplementation& other : spec.implementations) {
    if (other.name == implementation.name) {
      fail(t.get("name"), path + ".name",
           fmt::format("implementation name '{}' is used twice (first at line {})", implementation.name, other.line));
      return;
    }
  }
  spec.implementations.push_back(std::move(implementation));
}

// Each key belongs to one implementation: a kernel and element type listed
// by two implementations of the same name would be two schemas of one key.
void SpecReader::check_new_keys(const toml::table& t, const std::string& path,
                                const TuningSpecImplementation& implementation, const TuningSpec& spec) {
  const toml::table& kernels = *t.get("kernels")->as_table();
  for (const TuningSpecKernel& kernel : implementation.kernels) {
    for (DataType type : kernel.element_types) {
      const KernelTuningKey key = spec.key(implementation, kernel, type);
      for (const TuningSpecImplementation& other : spec.implementations) {
        if (other.implementation != implementation.implementation || other.device != implementation.device) continue;
        const bool declared = std::any_of(other.kernels.begin(), other.kernels.end(), [&](const TuningSpecKernel& k) {
          return k.kernel == kernel.kernel &&
                 std::find(k.element_types.begin(), k.element_types.end(), type) != k.element_types.end();
        });
        if (!declared) continue;
        fail(kernels.get(kernel.kernel), toml_support::join_path(path + ".kernels", kernel.kernel),
             fmt::format("key {} is already declared by implementation '{}' (line {})", key.to_string(), other.name,
                         other.line));
        return;
      }
    }
  }
}

Result<TuningSpec> SpecReader::read(const toml::table& root) {
  TuningSpec spec;
  spec.source = source_;
  r_.only_keys(root, "", {"schema_version", "library", "library_version", "tuning_abi", "namespace", "implementations"});
  auto version = r_.integer(root, "", "schema_version", true, 1, std::numeric_limits<std::int64_t>::max());
  if (failed()) return error();
  if (*version > kTuningSpecSchemaVersion) {
    return Error(ErrorCode::NOT_SUPPORTED, fmt::format("{}: schema_version {} is newer than this tunekit reads ({})",
                                                       source_, *version, kTuningSpecSchemaVersion));
  }
  spec.schema_version = *version;
  spec.library = identifier(root, "", "library", true, kIdentifier, "letters, digits and '_'").value_or("");
  spec.library_version = r_.string(root, "", "library_version", true, true).value_or("");
  spec.tuning_abi = r_.uint32(root, "", "tuning_abi", true, 1).value_or(1);
  spec.cpp_namespace =
      identifier(root, "", "namespace", true, "[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*",
                 "a C++ namespace such as tunekit::cpu")
          .value_or("");
  if (failed()) return error();
  const toml::node* node = root.get("implementations");
  if (!node) {
    fail(&root, "implementations", "missing");
    return error();
  }
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables() || array->empty()) {
    fail(node, "implementations", "expected one or more tables ([[implementations]])");
    return error();
  }
  for (std::size_t i = 0; i < array->size() && !failed(); ++i) {
    read_implementation(*array->get(i)->as_table(), fmt::format("implementations[{}]", i), spec);
  }
  if (failed()) return error();
  std::sort(spec.implementations.begin(), spec.implementations.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return spec;
}

}  // namespace

Result<TuningSpec> parse_tuning_spec(std::string_view text, std::string source) {
  Result<toml::table> root = parse_spec_document(text, source);
  if (!root.ok()) return root.error();
  return SpecReader(text, std::move(source)).read(*root);
}

Result<TuningSpec> ReadTuningSpec(const std::filesystem::path& path) {
  Result<std::string> text = store::read_file(path);
  if (!text.ok()) return text.error();
  return parse_tuning_spec(*text, path.string());
}

}  // namespace tunekit::tuning
