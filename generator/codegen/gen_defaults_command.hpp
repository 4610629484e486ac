// `gen-defaults SPEC -o HEADER`: the defaults header of a tuning spec. Shared
// by the `tunekit` tool and `tunekit_gen`, the generator the build uses
// (which does not link the kernels whose headers it generates).
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::codegen {

// Exit codes: 0 written (or already up to date), 2 a bad spec, 3 the header
// could not be written.
void add_gen_defaults_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::codegen
