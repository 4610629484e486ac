// `tunekit tune GRAPH.toml... --output FILE.json`: autotunes every shape of
// the graph files (their own dims and each shape set, or those picked with
// --shape-set) with the driver's engines, within a memory
// budget, prints the ranked candidates and writes each winner to an
// engine-override file.
#pragma once

#include <CLI/CLI.hpp>

#include "engine_registrations.hpp"

namespace tunekit::cli {

// Adds the subcommand; `exit_code` receives its result when it runs.
void add_tune_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines);

}  // namespace tunekit::cli
