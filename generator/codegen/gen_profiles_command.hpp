// `gen-profiles INPUT... -o HEADER [--spec SPEC]... [--namespace NS]
// [--function NAME]`: the registration header of processor profile files.
// Shared by the `tunekit` tool and `tunekit_gen`, which the build runs
// (tunekit_add_profiles).
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::codegen {

// Exit codes: 0 written (or already up to date), 2 a bad profile, spec or
// option, 3 the header could not be written.
void add_gen_profiles_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::codegen
