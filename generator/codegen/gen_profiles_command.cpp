// Reads the specs and profiles, generates, writes; every error is one line on
// standard error, and so is every note (a missing folder, a replacement).
#include "gen_profiles_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "generated_file.hpp"
#include "profile_collection.hpp"
#include "profiles_header.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::codegen {
namespace {

struct GenProfilesOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::vector<std::string> specs;
  std::string cpp_namespace;
  std::string function = "register_processor_profiles";
};

int fail(int code, const std::string& message) {
  fmt::print(stderr, "tunekit gen-profiles: {}\n", message);
  return code;
}

int run_gen_profiles(const GenProfilesOptions& o) {
  std::vector<tuning::TuningSpec> specs;
  for (const std::string& path : o.specs) {
    Result<tuning::TuningSpec> spec = tuning::ReadTuningSpec(path);
    if (!spec.ok()) return fail(2, spec.error().message());
    specs.push_back(std::move(*spec));
  }
  const std::vector<std::filesystem::path> inputs(o.inputs.begin(), o.inputs.end());
  Result<ProfileCollection> collection = collect_profiles(inputs, specs);
  if (!collection.ok()) return fail(2, collection.error().message());
  for (const std::string& note : collection->notes) fmt::print(stderr, "tunekit gen-profiles: note: {}\n", note);

  ProfilesHeaderOptions header_options;
  header_options.function = o.function;
  if (!o.cpp_namespace.empty()) {
    header_options.cpp_namespace = o.cpp_namespace;
  } else if (!specs.empty()) {
    header_options.cpp_namespace = specs.front().cpp_namespace;
  }
  Result<std::string> header = generate_profiles_header(collection->profiles, header_options);
  if (!header.ok()) return fail(2, header.error().message());
  if (Error e = write_generated_file(o.output, *header); e.is_bad()) return fail(3, e.message());
  return 0;
}

}  // namespace

void add_gen_profiles_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<GenProfilesOptions>();
  CLI::App* c = app.add_subcommand("gen-profiles", "Generate the header that registers processor profile files");
  c->add_option("inputs", o->inputs,
                "Profile folders (their *.toml files) and files; a later input's profile replaces an earlier "
                "one with the same key and selector")
      ->required();
  c->add_option("-o,--output", o->output, "The header to write (left untouched when already up to date)")
      ->required();
  c->add_option("--spec", o->specs, "Tuning specs whose schemas validate every profile (repeatable)");
  c->add_option("--namespace", o->cpp_namespace,
                "C++ namespace of the header (default: the first spec's namespace, else tunekit_profiles)");
  c->add_option("--function", o->function, "Name of the registration function")->capture_default_str();
  c->callback([o, &exit_code] { exit_code = run_gen_profiles(*o); });
}

}  // namespace tunekit::codegen
