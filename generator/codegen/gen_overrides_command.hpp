// `gen-overrides FILE.json -o HEADER [--namespace NS] [--function NAME]`: the
// header that embeds an engine-override file's entries in a program and
// registers them with the selection policy. Shared by the `tunekit` tool and
// `tunekit_gen` (which tune_graph() runs at build time).
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::codegen {

// Exit codes: 0 written (or already up to date), 2 a missing, unreadable or
// invalid file (or one whose every entry is malformed) or a bad name, 3 the
// header could not be written. Malformed entries among valid ones are left
// out, one line each on standard error.
void add_gen_overrides_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::codegen
