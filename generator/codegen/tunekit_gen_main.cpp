// tunekit_gen: the code generators of the `tunekit` tool without the kernels
// the tool links, so a kernel library's build can generate its own headers
// (tunekit_add_tuning_spec, tune_graph's HEADER) before the library exists.
// Exit codes as the tool's.
#include <CLI/CLI.hpp>

#include <optional>

#include "command_line.hpp"
#include "gen_defaults_command.hpp"
#include "gen_overrides_command.hpp"
#include "gen_profiles_command.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/version.hpp"

int main(int argc, char** argv) {
  tunekit::log::apply_environment();
  CLI::App app{"tunekit_gen: generates C++ headers from tunekit tuning specs and engine-override files", "tunekit_gen"};
  app.set_version_flag("--version", tunekit::kVersion);
  app.require_subcommand(1);
  int exit_code = 0;
  tunekit::codegen::add_gen_defaults_command(app, exit_code);
  tunekit::codegen::add_gen_profiles_command(app, exit_code);
  tunekit::codegen::add_gen_overrides_command(app, exit_code);
  if (std::optional<int> stopped = tunekit::codegen::parse_command_line(app, argc, argv)) return *stopped;
  return exit_code;
}
