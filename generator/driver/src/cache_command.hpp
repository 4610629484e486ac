// `tunekit cache show|merge|prune|export|import`: inspect and edit the
// calibration cache file, and move calibrated values to other machines as
// deployment profiles.
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::cli {

// Adds the subcommand group; `exit_code` receives the result of the one that
// runs (0 success, 1 a tuning or I/O failure, 2 bad usage or bad input).
void add_cache_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::cli
