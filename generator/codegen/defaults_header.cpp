// Writes the defaults header of a tuning spec. Everything is emitted in a
// fixed order (implementations by name, parameters in spec order, kernels by
// name, element types in DataType order, keys sorted), names are fully
// qualified so any namespace works, and no date or path goes in.
#include "defaults_header.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "cpp_text.hpp"

namespace tunekit::codegen {
namespace {

using tuning::TuningSpec;
using tuning::TuningSpecImplementation;
using tuning::TuningSpecKernel;
using tuning::TuningSpecParameter;

std::string data_type(DataType type) { return cpp_data_type(type); }

std::string cpp_type(core::ValueType type) {
  switch (type) {
    case core::ValueType::INT64: return "std::int64_t";
    case core::ValueType::DOUBLE: return "double";
    case core::ValueType::BOOL: return "bool";
    case core::ValueType::STRING: return "std::string";
  }
  return {};
}

// Integer parameters' bounds read as integers.
std::string bound(double value, core::ValueType type) {
  if (type == core::ValueType::INT64 && value == static_cast<double>(static_cast<std::int64_t>(value)) &&
      value > -9007199254740992.0 && value < 9007199254740992.0) {
    return cpp_int(static_cast<std::int64_t>(value));
  }
  return cpp_double(value);
}

std::string constraint_kind(tuning::ConstraintKind kind) {
  switch (kind) {
    case tuning::ConstraintKind::LESS_EQUAL: return "LESS_EQUAL";
    case tuning::ConstraintKind::LESS: return "LESS";
    case tuning::ConstraintKind::DIVIDES: return "DIVIDES";
  }
  return {};
}

std::string rules(const TuningSpecParameter& parameter) {
  const tuning::ParameterSpec& s = parameter.spec;
  std::string out = "::tunekit::tuning::FieldRules()";
  if (s.minimum) out += fmt::format(".at_least({})", bound(*s.minimum, s.type));
  if (s.maximum) out += fmt::format(".at_most({})", bound(*s.maximum, s.type));
  if (s.multiple_of) out += fmt::format(".multiple({})", cpp_int(*s.multiple_of));
  if (!s.allowed.empty()) {
    std::vector<std::string> values;
    for (const std::string& a : s.allowed) values.push_back(cpp_string(a));
    out += fmt::format(".one_of({{{}}})", fmt::join(values, ", "));
  }
  if (s.required) out += ".must_be_given()";
  out += fmt::format(".describe({})", cpp_string(s.description));
  return out;
}

std::string element_type_list(const TuningSpecKernel& kernel) {
  std::vector<std::string> names;
  for (DataType type : kernel.element_types) names.emplace_back(core::to_string(type));
  return fmt::format("{}", fmt::join(names, ", "));
}

void write_struct(std::string& out, const TuningSpecImplementation& implementation) {
  std::vector<std::string> kernels;
  for (const TuningSpecKernel& k : implementation.kernels) {
    kernels.push_back(fmt::format("{} ({})", k.kernel, element_type_list(k)));
  }
  out += fmt::format("// {}: implementation {} on {}, for {}.\n", implementation.name, implementation.implementation,
                     platform::to_string(implementation.device), fmt::join(kernels, ", "));
  if (!implementation.description.empty()) out += fmt::format("// {}\n", one_line(implementation.description));
  const std::string name = struct_name(implementation);
  out += fmt::format("struct {} {{\n", name);
  for (const TuningSpecParameter& p : implementation.parameters) {
    out += fmt::format("  // {}: {}\n", p.spec.name, one_line(p.spec.description));
    out += fmt::format("  {} {} = {};\n", cpp_type(p.spec.type), p.member, cpp_value(p.spec.portable_default));
  }
  out += "};\n\n";

  out += fmt::format("// Validates parameter sets of every {} key and applies them to a {}.\n", implementation.name,
                     name);
  out += fmt::format("inline const ::tunekit::tuning::TuningBinding<{0}>& {1}() {{\n", name,
                     binding_name(implementation));
  out += fmt::format("  static const ::tunekit::tuning::TuningBinding<{}> binding = [] {{\n", name);
  out += fmt::format("    ::tunekit::tuning::TuningBinding<{}> b;\n", name);
  for (const TuningSpecParameter& p : implementation.parameters) {
    out += fmt::format("    b.field({}, &{}::{},\n            {});\n", cpp_string(p.spec.name), name, p.member,
                       rules(p));
  }
  for (const tuning::ParameterConstraint& c : implementation.constraints) {
    out += fmt::format("    b.constraint({}, ::tunekit::tuning::ConstraintKind::{}, {});\n", cpp_string(c.first),
                       constraint_kind(c.kind), cpp_string(c.second));
  }
  out += "    return b;\n  }();\n  return binding;\n}\n\n";
}

void write_key_helpers(std::string& out, const TuningSpecImplementation& implementation,
                       const TuningSpecKernel& kernel) {
  const std::string base = key_helper_base(implementation, kernel);
  const std::string types = fmt::format("k{}ElementTypes", camel_case(base));
  std::vector<std::string> values;
  for (DataType type : kernel.element_types) values.push_back(data_type(type));
  out += fmt::format("// {}/{}: {}.\n", kernel.kernel, implementation.implementation, element_type_list(kernel));
  out += fmt::format("inline constexpr std::array<::tunekit::DataType, {}> {}{{{}}};\n", values.size(), types,
                     fmt::join(values, ", "));
  out += fmt::format("// The key of {}/{} for an element type ({}_supports says which are declared).\n",
                     kernel.kernel, implementation.implementation, base);
  out += fmt::format("inline ::tunekit::tuning::KernelTuningKey {}_key(::tunekit::DataType type) {{\n", base);
  out += fmt::format("  return {{kTuningLibrary, {}, {}, type, {}, kTuningAbi}};\n}}\n", cpp_string(kernel.kernel),
                     cpp_string(implementation.implementation), cpp_device_kind(implementation.device));
  out += fmt::format("inline constexpr bool {}_supports(::tunekit::DataType type) noexcept {{\n", base);
  out += fmt::format("  for (::tunekit::DataType declared : {}) {{\n    if (declared == type) return true;\n  }}\n",
                     types);
  out += "  return false;\n}\n";
  for (DataType type : kernel.element_types) {
    out += fmt::format("inline ::tunekit::tuning::KernelTuningKey {}_{}_key() {{ return {}_key({}); }}\n", base,
                       core::to_string(type), base, data_type(type));
  }
  out += "\n";
}

// Every name the header declares, so that two names of the spec that map to
// one identifier are an error in the spec and not in a compiler.
Error check_names(const TuningSpec& spec) {
  std::map<std::string, std::size_t> declared;
  auto claim = [&](const std::string& name, std::size_t line, std::string_view what) -> Error {
    auto [it, added] = declared.emplace(name, line);
    if (added) return Error::ok();
    return {ErrorCode::INVALID_VALUE, fmt::format("{}:{}: {} makes the C++ name {}, already made at line {}",
                                                  spec.source, line, what, name, it->second)};
  };
  const std::string library = snake_case(spec.library);
  for (const char* constant : {"kTuningLibrary", "kTuningLibraryVersion", "kTuningAbi"}) {
    TUNEKIT_RETURN_IF_ERROR(claim(constant, 1, "the library"));
  }
  TUNEKIT_RETURN_IF_ERROR(claim("register_" + library + "_schemas", 1, "the library"));
  TUNEKIT_RETURN_IF_ERROR(claim(library + "_tuning_keys", 1, "the library"));
  for (const TuningSpecImplementation& implementation : spec.implementations) {
    const std::string what = fmt::format("implementation '{}'", implementation.name);
    TUNEKIT_RETURN_IF_ERROR(claim(struct_name(implementation), implementation.line, what));
    TUNEKIT_RETURN_IF_ERROR(claim(binding_name(implementation), implementation.line, what));
    for (const TuningSpecKernel& kernel : implementation.kernels) {
      const std::string base = key_helper_base(implementation, kernel);
      const std::string kernel_what = fmt::format("kernel {} of implementation '{}'", kernel.kernel, implementation.name);
      TUNEKIT_RETURN_IF_ERROR(claim(fmt::format("k{}ElementTypes", camel_case(base)), kernel.line, kernel_what));
      TUNEKIT_RETURN_IF_ERROR(claim(base + "_key", kernel.line, kernel_what));
      TUNEKIT_RETURN_IF_ERROR(claim(base + "_supports", kernel.line, kernel_what));
      for (DataType type : kernel.element_types) {
        TUNEKIT_RETURN_IF_ERROR(claim(fmt::format("{}_{}_key", base, core::to_string(type)), kernel.line, kernel_what));
      }
    }
  }
  return Error::ok();
}

}  // namespace

std::string struct_name(const TuningSpecImplementation& implementation) {
  return camel_case(implementation.name) + "Tuning";
}

std::string binding_name(const TuningSpecImplementation& implementation) { return implementation.name + "_binding"; }

std::string key_helper_base(const TuningSpecImplementation& implementation, const TuningSpecKernel& kernel) {
  // Formatted, not concatenated: GCC 12 at -O3 warns (-Wrestrict, a false
  // positive) on a temporary string + "_" + string.
  if (implementation.device == platform::DeviceKind::CPU) {
    return fmt::format("{}_{}", snake_case(kernel.kernel), snake_case(implementation.implementation));
  }
  return fmt::format("{}_{}_{}", snake_case(kernel.kernel), snake_case(implementation.implementation),
                     platform::to_string(implementation.device));
}

Result<std::string> generate_defaults_header(const TuningSpec& spec) {
  TUNEKIT_RETURN_IF_ERROR(check_names(spec));
  const std::string library = snake_case(spec.library);
  const std::string file = std::filesystem::path(spec.source).filename().string();

  std::string out = "// generated by tunekit; do not edit.\n";
  out += fmt::format("// The tuning defaults of {} {} (tuning ABI {}), generated from {} by\n", spec.library,
                     spec.library_version, spec.tuning_abi, file);
  out += "// `tunekit gen-defaults`. Change a default in the spec (or with `tunekit promote`) and rebuild.\n";
  out += "#pragma once\n\n";
  out += "#include <array>\n#include <cstdint>\n#include <string>\n#include <vector>\n\n";
  out += "#include \"tunekit/core/data_type.hpp\"\n";
  out += "#include \"tunekit/tuning/kernel_tuning_key.hpp\"\n";
  out += "#include \"tunekit/tuning/kernel_tuning_registry.hpp\"\n";
  out += "#include \"tunekit/tuning/tuning_binding.hpp\"\n\n";
  out += fmt::format("namespace {} {{\n\n", spec.cpp_namespace);
  out += fmt::format("inline constexpr const char* kTuningLibrary = {};\n", cpp_string(spec.library));
  out += fmt::format("inline constexpr const char* kTuningLibraryVersion = {};\n", cpp_string(spec.library_version));
  out += fmt::format("inline constexpr std::uint32_t kTuningAbi = {};\n\n", spec.tuning_abi);

  std::map<tuning::KernelTuningKey, std::string> key_expressions;
  for (const TuningSpecImplementation& implementation : spec.implementations) {
    write_struct(out, implementation);
    for (const TuningSpecKernel& kernel : implementation.kernels) {
      write_key_helpers(out, implementation, kernel);
      for (DataType type : kernel.element_types) {
        key_expressions[spec.key(implementation, kernel, type)] =
            fmt::format("{}_key({})", key_helper_base(implementation, kernel), data_type(type));
      }
    }
  }

  out += fmt::format("// Every key of the {} tuning spec, sorted.\n", spec.library);
  out += fmt::format("inline std::vector<::tunekit::tuning::KernelTuningKey> {}_tuning_keys() {{\n  return {{\n",
                     library);
  for (const auto& [key, expression] : key_expressions) out += fmt::format("      {},\n", expression);
  out += "  };\n}\n\n";

  out += fmt::format("// Registers the schema of every {} key. Throws TuningError when the registry\n", spec.library);
  out += "// rejects one (another schema of the key is registered and profiles use it).\n";
  out += fmt::format(
      "inline void register_{}_schemas(\n    ::tunekit::tuning::KernelTuningRegistry& registry = "
      "::tunekit::tuning::KernelTuningRegistry::global()) {{\n",
      library);
  for (const TuningSpecImplementation& implementation : spec.implementations) {
    for (const TuningSpecKernel& kernel : implementation.kernels) {
      const std::string base = key_helper_base(implementation, kernel);
      out += fmt::format("  for (::tunekit::DataType type : k{}ElementTypes) {{\n", camel_case(base));
      out += fmt::format("    registry.register_schema({}().schema({}_key(type)));\n  }}\n",
                         binding_name(implementation), base);
    }
  }
  out += "}\n\n";
  out += fmt::format("}}  // namespace {}\n", spec.cpp_namespace);
  return out;
}

}  // namespace tunekit::codegen
