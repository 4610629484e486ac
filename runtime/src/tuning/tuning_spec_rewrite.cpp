// Rewriting defaults in the spec text: every change is checked against the
// rules first (all or none), then only the bytes of each default's value are
// replaced, from the end of the text backwards so earlier offsets stay valid.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "spec_messages.hpp"
#include "toml_support.hpp"
#include "tunekit/tuning/spec_promotion.hpp"

namespace tunekit::tuning {
namespace {

struct Splice {
  SpecTextRange range;
  std::string text;
};

}  // namespace

Result<std::vector<DefaultChange>> defaults_from_profiles(const TuningSpec& spec,
                                                          std::span<const KernelTuningProfile> profiles,
                                                          const std::vector<std::string>& parameters) {
  std::map<std::pair<std::string, std::string>, DefaultChange> changes;
  for (const KernelTuningProfile& profile : profiles) {
    const KernelTuningKey& key = profile.parameters.key;
    const TuningSpecImplementation* implementation = spec.find(key);
    if (implementation == nullptr) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("profile '{}': key {} is not declared by {} (library {}, tuning ABI {})", profile.name,
                               key.to_string(), spec.source, spec.library, spec.tuning_abi));
    }
    for (const auto& [name, value] : profile.parameters.values) {
      if (!parameters.empty() && std::find(parameters.begin(), parameters.end(), name) == parameters.end()) continue;
      const bool declared = std::any_of(implementation->parameters.begin(), implementation->parameters.end(),
                                        [&, wanted = name](const TuningSpecParameter& p) { return p.spec.name == wanted; });
      if (!declared) {
        return Error(ErrorCode::INVALID_VALUE,
                     fmt::format("profile '{}': parameter {} = {} is not declared by implementation '{}' of {}",
                                 profile.name, name, value.to_text(), implementation->name, spec.source));
      }
      DefaultChange change{implementation->name, name, value, profile.name};
      auto [it, added] = changes.emplace(std::pair(implementation->name, name), change);
      if (!added && !(it->second.value == value)) {
        return Error(ErrorCode::INVALID_VALUE,
                     fmt::format("{} of implementation '{}' is {} in profile '{}' but {} in profile '{}': promote one "
                                 "of them (a file with one profile, or --parameter)",
                                 name, implementation->name, it->second.value.to_text(), it->second.origin,
                                 value.to_text(), profile.name));
      }
    }
  }
  for (const std::string& name : parameters) {
    const bool found = std::any_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first.second == name; });
    if (!found) return Error(ErrorCode::INVALID_VALUE, fmt::format("parameter {} is in none of the profiles", name));
  }
  std::vector<DefaultChange> out;
  for (auto& [where, change] : changes) out.push_back(std::move(change));
  return out;
}

Result<std::string> rewrite_spec_defaults(std::string_view text, const TuningSpec& spec,
                                          const std::vector<DefaultChange>& changes) {
  std::vector<Splice> splices;
  std::map<std::string, std::vector<const DefaultChange*>> by_implementation;
  for (const DefaultChange& change : changes) by_implementation[change.implementation].push_back(&change);

  for (const auto& [name, list] : by_implementation) {
    const auto implementation =
        std::find_if(spec.implementations.begin(), spec.implementations.end(),
                     [&, wanted = name](const TuningSpecImplementation& i) { return i.name == wanted; });
    if (implementation == spec.implementations.end()) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: no implementation named '{}'", spec.source, name));
    }
    std::vector<ParameterSpec> specs;
    for (const TuningSpecParameter& p : implementation->parameters) specs.push_back(p.spec);
    std::map<std::string, const DefaultChange*> applied;
    for (const DefaultChange* change : list) {
      const auto at = std::find_if(specs.begin(), specs.end(),
                                   [&](const ParameterSpec& s) { return s.name == change->parameter; });
      if (at == specs.end()) {
        return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: implementation '{}' has no parameter {}", spec.source,
                                                           name, change->parameter));
      }
      if (auto [it, added] = applied.emplace(change->parameter, change); !added && !(it->second->value == change->value)) {
        return Error(ErrorCode::INVALID_VALUE,
                     fmt::format("{}: {}: two new defaults for {}: {} ({}) and {} ({})", spec.source, name,
                                 change->parameter, it->second->value.to_text(), it->second->origin,
                                 change->value.to_text(), change->origin));
      }
      at->portable_default = change->value;
    }
    // Every key of the implementation has these rules; one key checks them.
    const TuningSpecKernel& kernel = implementation->kernels.front();
    const KernelTuningKey key = spec.key(*implementation, kernel, kernel.element_types.front());
    if (Error e = KernelTuningSchema(key, specs, implementation->constraints).validate_schema(); e.is_bad()) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: implementation '{}': new default refused: {}",
                                                         spec.source, name, spec_messages::rule_message(e, key)));
    }
    for (const auto& [parameter, change] : applied) {
      for (const TuningSpecParameter& p : implementation->parameters) {
        if (p.spec.name == parameter) splices.push_back({p.default_text, toml_support::format_value(change->value)});
      }
    }
  }

  std::sort(splices.begin(), splices.end(),
            [](const Splice& a, const Splice& b) { return a.range.offset > b.range.offset; });
  std::string out(text);
  for (const Splice& s : splices) {
    if (s.range.offset + s.range.length > out.size()) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("{}: the text does not match the parsed spec (line {})", spec.source, s.range.line));
    }
    out.replace(s.range.offset, s.range.length, s.text);
  }
  // The new text must read back as the spec with exactly the new defaults.
  Result<TuningSpec> again = parse_tuning_spec(out, spec.source);
  if (!again.ok()) {
    return Error(ErrorCode::INTERNAL, "the rewritten spec does not parse: " + again.error().message());
  }
  for (const DefaultChange& change : changes) {
    for (const TuningSpecImplementation& implementation : again->implementations) {
      for (const TuningSpecParameter& p : implementation.parameters) {
        if (implementation.name == change.implementation && p.spec.name == change.parameter &&
            !(p.spec.portable_default == change.value)) {
          return Error(ErrorCode::INTERNAL, fmt::format("{}: {} reads back as {} after the rewrite, not {}",
                                                        spec.source, change.parameter,
                                                        p.spec.portable_default.to_text(), change.value.to_text()));
        }
      }
    }
  }
  return out;
}

}  // namespace tunekit::tuning
