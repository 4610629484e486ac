// `tunekit promote --profile P --spec S [--parameter NAME]...`: makes measured
// values the portable defaults of a tuning spec, rewriting only those values'
// text in the spec.
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::cli {

void add_promote_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::cli
