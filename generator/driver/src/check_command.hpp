// `tunekit check OVERRIDES.json --graphs GRAPH.toml...`: retunes, on this
// machine, every shape whose winner an override file stores, and prints a
// diff a reviewer can read: which stored choices still hold, which a
// significantly faster candidate now beats (with both times and the
// comparison's interval), and which no longer run. The file is not changed.
// Exit 1 only when a stored choice is significantly slower than the new best
// by more than --margin, fails or no longer applies (or a shape fails to tune).
// `tunekit check --profiles DIR...` checks processor profiles instead
// (check_profiles.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include "engine_registrations.hpp"

namespace tunekit::cli {

// Adds the subcommand; `exit_code` receives its result when it runs.
void add_check_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines);

}  // namespace tunekit::cli
