// The tunekit command-line tool. Exit codes (exit_codes.hpp): 0 success,
// 1 a tuning failure, 2 bad usage or bad input, 3 an output that could not be
// written.
#include <CLI/CLI.hpp>

#include "cache_command.hpp"
#include "calibrate_command.hpp"
#include "describe_command.hpp"
#include "gen_defaults_command.hpp"
#include "gen_overrides_command.hpp"
#include "exit_codes.hpp"
#include "overrides_command.hpp"
#include "promote_command.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/cpu/register.hpp"
#include "tune_command.hpp"

int main(int argc, char** argv) {
  tunekit::log::apply_environment();
  // The kernels this tool ships: their schemas validate caches and profiles,
  // their calibration functions serve `tunekit calibrate`.
  tunekit::cpu::register_tunekit_cpu();
  CLI::App app{"tunekit: tunes compute kernels and graph engines for this machine", "tunekit"};
  app.set_version_flag("--version", tunekit::kVersion);
  app.require_subcommand(1);

  int exit_code = 0;
  tunekit::cli::add_describe_command(app, exit_code);
  tunekit::cli::add_cache_command(app, exit_code);
  tunekit::cli::add_calibrate_command(app, exit_code);
  tunekit::cli::add_tune_command(app, exit_code);
  tunekit::cli::add_overrides_command(app, exit_code);
  tunekit::codegen::add_gen_defaults_command(app, exit_code);
  tunekit::codegen::add_gen_overrides_command(app, exit_code);
  tunekit::cli::add_promote_command(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return tunekit::cli::kBadInput;
  }
  return tunekit::cli::finish_standard_output(exit_code);
}
