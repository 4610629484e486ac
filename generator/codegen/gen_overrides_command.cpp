// Reads and validates the override file, generates, writes; every error is
// one line on standard error.
#include "gen_overrides_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "generated_file.hpp"
#include "overrides_header.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/store/atomic_file.hpp"

namespace tunekit::codegen {
namespace {

struct GenOverridesOptions {
  std::string input;
  std::string output;
  OverridesHeaderNames names;
};

// Messages quote the file's path, which may be any bytes: printed as UTF-8.
int fail(int code, const std::string& message) {
  fmt::print(stderr, "tunekit gen-overrides: {}\n", core::replace_invalid_utf8(message));
  return code;
}

int run_gen_overrides(GenOverridesOptions o) {
  if (Error e = check_header_names(o.names); e.is_bad()) return fail(2, e.message());
  Result<std::string> text = store::read_file(o.input);
  if (!text.ok()) return fail(2, text.error().message());
  Result<CanonicalOverrides> overrides = canonical_overrides(*text, o.input);
  if (!overrides.ok()) return fail(2, overrides.error().message());
  for (const std::string& problem : overrides->left_out) {
    fmt::print(stderr, "tunekit gen-overrides: {}: {} (left out)\n", core::replace_invalid_utf8(o.input), problem);
  }
  // The file name only: the header must not depend on where the file lies.
  // Shown in a comment and a string of the header, so as UTF-8.
  o.names.source_name = core::replace_invalid_utf8(std::filesystem::path(o.input).filename().string());
  const std::string header = generate_overrides_header(*overrides, o.names);
  if (Error e = write_generated_file(o.output, header); e.is_bad()) return fail(3, e.message());
  return 0;
}

}  // namespace

void add_gen_overrides_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<GenOverridesOptions>();
  CLI::App* c = app.add_subcommand("gen-overrides", "Generate a header that embeds an engine-override file");
  c->add_option("file", o->input, "The engine-override file (JSON, version 1 or 2)")->required();
  c->add_option("-o,--output", o->output, "The header to write (left untouched when already up to date)")
      ->required();
  c->add_option("--namespace", o->names.name_space, "The namespace of the generated names")
      ->capture_default_str();
  c->add_option("--function", o->names.function, "The name of the registration function")->capture_default_str();
  c->callback([o, &exit_code] { exit_code = run_gen_overrides(*o); });
}

}  // namespace tunekit::codegen
