// `tunekit calibrate`: loads the calibration cache, calibrates the selected
// tunekit_cpu kernels on this machine, and stores the results in the cache.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace tunekit::cli {

// `build_type`: the build type the registered kernels were compiled in
// (Registrations::build_type), recorded in the report and the profile.
void add_calibrate_command(CLI::App& app, int& exit_code, const std::string& build_type);

}  // namespace tunekit::cli
