// The driver's command line: every subcommand of the tunekit tool, over the
// kernels and engines that the caller registers.
#include "tunekit/driver/driver.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>
#include <optional>

#include "cache_command.hpp"
#include "check_command.hpp"
#include "command_line.hpp"
#include "calibrate_command.hpp"
#include "describe_command.hpp"
#include "exit_codes.hpp"
#include "gen_defaults_command.hpp"
#include "gen_overrides_command.hpp"
#include "gen_profiles_command.hpp"
#include "overrides_command.hpp"
#include "promote_command.hpp"
#include "report_command.hpp"
#include "tune_command.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::driver {

int run(int argc, char** argv, const Registrations& registrations) {
  log::apply_environment();
  // The registered kernels' schemas validate caches and profiles, their
  // calibration functions serve `calibrate`.
  try {
    for (const KernelRegistration& register_kernels : registrations.kernels) {
      if (register_kernels) register_kernels(tuning::KernelTuningRegistry::global());
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: registering the kernels failed: {}\n", registrations.program, e.what());
    return cli::kTuningFailure;
  }

  CLI::App app{registrations.program + ": tunes compute kernels and graph engines for this machine",
               registrations.program};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  int exit_code = 0;
  cli::add_describe_command(app, exit_code);
  cli::add_cache_command(app, exit_code);
  cli::add_calibrate_command(app, exit_code, registrations.build_type);
  cli::add_tune_command(app, exit_code, registrations.engines);
  cli::add_check_command(app, exit_code, registrations.engines);
  cli::add_overrides_command(app, exit_code, registrations.engines);
  cli::add_report_command(app, exit_code);
  codegen::add_gen_defaults_command(app, exit_code);
  codegen::add_gen_profiles_command(app, exit_code);
  codegen::add_gen_overrides_command(app, exit_code);
  cli::add_promote_command(app, exit_code);

  if (std::optional<int> stopped = codegen::parse_command_line(app, argc, argv)) return *stopped;
  return cli::finish_standard_output(exit_code);
}

}  // namespace tunekit::driver
