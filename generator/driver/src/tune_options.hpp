// The options of `tunekit tune` that decide how candidates are measured and
// checked, shared with `tunekit check` (which measures the same way), and
// the AutotuneConfig they make.
#pragma once

#include <CLI/CLI.hpp>

#include "tune_problem.hpp"
#include "tunekit/core/error.hpp"
#include "tunekit/graph/autotune_config.hpp"

namespace tunekit::cli {

// --mode, --strategy, iteration counts, the comparison, the checks, plugins,
// --isolate and its timeout (and the hidden options of an isolated child).
void add_measurement_options(CLI::App& app, TuneOptions& o);

// The configuration the options ask for; INVALID_VALUE naming the option
// (an unknown mode or strategy, --isolate with a race, a bad combination).
Result<graph::AutotuneConfig> autotune_config_from(const TuneOptions& options);

}  // namespace tunekit::cli
