// Writes the registration header of processor profiles. Everything is
// emitted in a fixed order (profiles by key then name, selector fields in
// declaration order, features in CpuFeature order, parameters by name), names
// are fully qualified so any namespace works, and no date or path goes in.
#include "profiles_header.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cpp_text.hpp"

namespace tunekit::codegen {
namespace {

using tuning::CpuSelector;
using tuning::KernelTuningProfile;

bool is_identifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_namespace(std::string_view text) {
  while (true) {
    const std::size_t at = text.find("::");
    if (!is_identifier(text.substr(0, at))) return false;
    if (at == std::string_view::npos) return true;
    text.remove_prefix(at + 2);
  }
}

std::string feature_list(const platform::CpuFeatureSet& features) {
  std::vector<std::string> names;
  for (platform::CpuFeature f : platform::all_cpu_features()) {
    if (features.contains(f)) names.push_back(cpp_cpu_feature(f));
  }
  return fmt::format("{{{}}}", fmt::join(names, ", "));
}

void write_selector(std::string& out, const CpuSelector& s) {
  if (s.architecture) out += fmt::format("    p.selector.architecture = {};\n", cpp_string(*s.architecture));
  if (s.vendor) out += fmt::format("    p.selector.vendor = {};\n", cpp_string(*s.vendor));
  if (s.family) out += fmt::format("    p.selector.family = {}u;\n", *s.family);
  if (!s.models.empty()) out += fmt::format("    p.selector.models = {{{}u}};\n", fmt::join(s.models, "u, "));
  if (s.stepping) out += fmt::format("    p.selector.stepping = {}u;\n", *s.stepping);
  if (s.microarchitecture) {
    out += fmt::format("    p.selector.microarchitecture = {};\n", cpp_string(*s.microarchitecture));
  }
  if (!s.required_features.empty()) {
    out += fmt::format("    p.selector.required_features = {};\n", feature_list(s.required_features));
  }
  if (!s.excluded_features.empty()) {
    out += fmt::format("    p.selector.excluded_features = {};\n", feature_list(s.excluded_features));
  }
  if (s.minimum_threads) out += fmt::format("    p.selector.minimum_threads = {}u;\n", *s.minimum_threads);
  if (s.maximum_threads) out += fmt::format("    p.selector.maximum_threads = {}u;\n", *s.maximum_threads);
}

Result<std::string> profile_text(const SourcedProfile& sourced) {
  const KernelTuningProfile& p = sourced.profile;
  const tuning::KernelTuningKey& key = p.parameters.key;
  std::string out = "  {\n";
  out += fmt::format("    // {} ({})\n", one_line(p.name), sourced.source.filename().string());
  out += "    ::tunekit::tuning::KernelTuningProfile& p = profiles.emplace_back();\n";
  out += fmt::format("    p.name = {};\n", cpp_string(p.name));
  out += fmt::format("    p.parameters.key = {{{}, {}, {}, {}, {}, {}u}};\n", cpp_string(key.library),
                     cpp_string(key.kernel), cpp_string(key.implementation), cpp_data_type(key.element_type),
                     cpp_device_kind(key.device), key.tuning_abi);
  write_selector(out, p.selector);
  out += fmt::format("    p.priority = {};\n", p.priority);
  if (!p.parameters.values.empty()) {
    out += "    p.parameters.values = {\n";
    for (const auto& [name, value] : p.parameters.values) {
      if (auto d = value.as_double(); d && !std::isfinite(*d)) {
        return Error(ErrorCode::INVALID_VALUE,
                     fmt::format("{}: profile {}: parameter {} = {}: a non-finite value cannot be compiled in",
                                 sourced.source.string(), p.name, name, value.to_text()));
      }
      out += fmt::format("        {{{}, ::tunekit::core::Value({})}},\n", cpp_string(name), cpp_value(value));
    }
    out += "    };\n";
  }
  out += "  }\n";
  return out;
}

}  // namespace

std::string profile_count_name(std::string_view function) {
  constexpr std::string_view prefix = "register_";
  if (function.starts_with(prefix) && function.size() > prefix.size()) function.remove_prefix(prefix.size());
  return fmt::format("k{}Count", camel_case(function));  // not "k" + temporary: GCC 12 -O3 -Wrestrict
}

Result<std::string> generate_profiles_header(std::span<const SourcedProfile> profiles,
                                             const ProfilesHeaderOptions& options) {
  if (!is_namespace(options.cpp_namespace)) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("namespace '{}' is not a C++ namespace name (such as my_lib::tuning)", options.cpp_namespace));
  }
  if (!is_identifier(options.function)) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("function '{}' is not a C++ identifier", options.function));
  }
  std::vector<const SourcedProfile*> sorted;
  for (const SourcedProfile& p : profiles) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const SourcedProfile* a, const SourcedProfile* b) {
    if (a->profile.parameters.key != b->profile.parameters.key) {
      return a->profile.parameters.key < b->profile.parameters.key;
    }
    return a->profile.name < b->profile.name;
  });
  std::map<std::string, std::size_t> files;  // file name -> profiles
  for (const SourcedProfile* p : sorted) ++files[p->source.filename().string()];

  std::string out = "// generated by tunekit; do not edit.\n";
  if (files.empty()) {
    out += "// No processor profiles (no profile files), generated by `tunekit gen-profiles`.\n";
  } else {
    out += fmt::format("// {} processor profiles, generated by `tunekit gen-profiles` from:\n", sorted.size());
    for (const auto& [file, count] : files) {
      out += fmt::format("//   {} ({} profile{})\n", one_line(file), count, count == 1 ? "" : "s");
    }
  }
  out += "// Register the schemas of their keys first (the register_<library>_schemas\n";
  out += "// function of the library's tuning header): the registry validates each\n";
  out += "// profile against its key's schema and registers none without it.\n";
  out += "#pragma once\n\n";
  out += "#include <cstddef>\n#include <utility>\n#include <vector>\n\n";
  out += "#include \"tunekit/core/data_type.hpp\"\n";
  out += "#include \"tunekit/core/error.hpp\"\n";
  out += "#include \"tunekit/core/value.hpp\"\n";
  out += "#include \"tunekit/platform/cpu_features.hpp\"\n";
  out += "#include \"tunekit/platform/device.hpp\"\n";
  out += "#include \"tunekit/tuning/kernel_tuning_registry.hpp\"\n";
  out += "#include \"tunekit/tuning/tuning_profile.hpp\"\n\n";
  out += fmt::format("namespace {} {{\n\n", options.cpp_namespace);
  out += fmt::format("// The number of profiles {} registers.\n", options.function);
  out += fmt::format("inline constexpr std::size_t {} = {};\n\n", profile_count_name(options.function), sorted.size());
  out += "// Registers every profile in one generation of `registry`, all or none; the\n";
  out += "// error names the profile the registry rejected.\n";
  out += fmt::format(
      "inline ::tunekit::Error {}(\n    ::tunekit::tuning::KernelTuningRegistry& registry = "
      "::tunekit::tuning::KernelTuningRegistry::global()) {{\n",
      options.function);
  if (sorted.empty()) {
    out += "  static_cast<void>(registry);\n  return ::tunekit::Error::ok();\n";
  } else {
    out += "  std::vector<::tunekit::tuning::KernelTuningProfile> profiles;\n";
    out += fmt::format("  profiles.reserve({});\n", sorted.size());
    for (const SourcedProfile* p : sorted) {
      Result<std::string> text = profile_text(*p);
      if (!text.ok()) return text.error();
      out += *text;
    }
    out += "  return registry.try_register_profiles(std::move(profiles));\n";
  }
  out += "}\n\n";
  out += fmt::format("}}  // namespace {}\n", options.cpp_namespace);
  return out;
}

}  // namespace tunekit::codegen
