// Reads the spec, generates, writes; every error is one line on standard error.
#include "gen_defaults_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "defaults_header.hpp"
#include "generated_file.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::codegen {
namespace {

struct GenDefaultsOptions {
  std::string spec;
  std::string output;
};

int fail(int code, const std::string& message) {
  fmt::print(stderr, "tunekit gen-defaults: {}\n", message);
  return code;
}

int run_gen_defaults(const GenDefaultsOptions& o) {
  Result<tuning::TuningSpec> spec = tuning::ReadTuningSpec(o.spec);
  if (!spec.ok()) return fail(2, spec.error().message());
  Result<std::string> header = generate_defaults_header(*spec);
  if (!header.ok()) return fail(2, header.error().message());
  if (Error e = write_generated_file(o.output, *header); e.is_bad()) return fail(3, e.message());
  return 0;
}

}  // namespace

void add_gen_defaults_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<GenDefaultsOptions>();
  CLI::App* c = app.add_subcommand("gen-defaults", "Generate the typed defaults header of a tuning spec");
  c->add_option("spec", o->spec, "The tuning spec (tuning.toml)")->required();
  c->add_option("-o,--output", o->output, "The header to write (left untouched when already up to date)")
      ->required();
  c->callback([o, &exit_code] { exit_code = run_gen_defaults(*o); });
}

}  // namespace tunekit::codegen
