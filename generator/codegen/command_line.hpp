// The parse step shared by the tunekit driver and tunekit_gen: CLI11's help
// and version requests, and bad usage as exit code 2.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

namespace tunekit::codegen {

// Parses the command line, which runs the chosen subcommand's callback.
// nullopt when it ran; otherwise the exit code to return: 0 after --help or
// --version, 2 (bad usage) after a parse error, which CLI11 has printed.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace tunekit::codegen
