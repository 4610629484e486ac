// `tunekit describe`: the processor and execution descriptors of this
// machine, and the devices tunekit can tune for.
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::cli {

// Adds the subcommand; `exit_code` receives its result when it runs.
void add_describe_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::cli
