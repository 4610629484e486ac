// `tunekit overrides show|merge|validate|lookup`: inspect engine-override
// files, combine them, check them entry by entry, and explain which entry
// the selection policy picks for an operation and why the others miss.
#pragma once

#include <CLI/CLI.hpp>

#include "engine_registrations.hpp"

namespace tunekit::cli {

// Adds the subcommand group; `exit_code` receives its result when it runs.
void add_overrides_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines);

}  // namespace tunekit::cli
