// Reads the spec and the profile, asks the tuning library for the changes and
// the rewritten text, replaces the spec atomically and prints each change.
// Exit codes: 0 done (also when nothing changed), 2 bad input or a value the
// spec refuses (the spec is then untouched), 3 the spec could not be written.
#include "promote_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/deployment_profile.hpp"
#include "tunekit/tuning/spec_promotion.hpp"

namespace tunekit::cli {
namespace {

struct PromoteOptions {
  std::string profile;
  std::string spec;
  std::vector<std::string> parameters;
};

int fail(int code, const std::string& message) {
  fmt::print(stderr, "tunekit promote: {}\n", message);
  return code;
}

const tuning::ParameterSpec* find_parameter(const tuning::TuningSpec& spec, const tuning::DefaultChange& change) {
  for (const tuning::TuningSpecImplementation& implementation : spec.implementations) {
    if (implementation.name != change.implementation) continue;
    for (const tuning::TuningSpecParameter& p : implementation.parameters) {
      if (p.spec.name == change.parameter) return &p.spec;
    }
  }
  return nullptr;
}

int run_promote(const PromoteOptions& o) {
  Result<std::string> text = store::read_file(o.spec);
  if (!text.ok()) return fail(2, text.error().message());
  Result<tuning::TuningSpec> spec = tuning::parse_tuning_spec(*text, o.spec);
  if (!spec.ok()) return fail(2, spec.error().message());
  Result<std::vector<tuning::KernelTuningProfile>> profiles = tuning::ReadDeploymentProfiles(o.profile);
  if (!profiles.ok()) return fail(2, profiles.error().message());
  if (profiles->empty()) return fail(2, fmt::format("{}: holds no profile", o.profile));

  Result<std::vector<tuning::DefaultChange>> changes = tuning::defaults_from_profiles(*spec, *profiles, o.parameters);
  if (!changes.ok()) return fail(2, changes.error().message());
  Result<std::string> rewritten = tuning::rewrite_spec_defaults(*text, *spec, *changes);
  if (!rewritten.ok()) return fail(2, rewritten.error().message());

  for (const tuning::DefaultChange& change : *changes) {
    const tuning::ParameterSpec* parameter = find_parameter(*spec, change);
    const std::string before = parameter ? parameter->portable_default.to_text() : "?";
    if (parameter && parameter->portable_default == change.value) {
      fmt::print("unchanged {} {} = {} (profile '{}')\n", change.implementation, change.parameter, before,
                 change.origin);
    } else {
      fmt::print("promoted  {} {}: {} -> {} (profile '{}')\n", change.implementation, change.parameter, before,
                 change.value.to_text(), change.origin);
    }
  }
  if (*rewritten == *text) return 0;
  if (Error e = store::write_file_atomically(o.spec, *rewritten); e.is_bad()) return fail(3, e.message());
  return 0;
}

}  // namespace

void add_promote_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PromoteOptions>();
  CLI::App* c = app.add_subcommand("promote", "Make measured profile values the portable defaults of a tuning spec");
  c->add_option("--profile", o->profile, "A profile file as `tunekit cache export` writes it")->required();
  c->add_option("--spec", o->spec, "The tuning spec to rewrite (tuning.toml)")->required();
  c->add_option("--parameter", o->parameters, "Promote only this parameter (repeatable; default: all of the profile's)");
  c->callback([o, &exit_code] { exit_code = run_promote(*o); });
}

}  // namespace tunekit::cli
