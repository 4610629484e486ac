// `tunekit calibrate`: loads the calibration cache, calibrates the selected
// tunekit_cpu kernels on this machine, and stores the results in the cache.
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::cli {

void add_calibrate_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::cli
