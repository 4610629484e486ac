// tune --isolate: every candidate of a shape is compiled, checked and timed
// in a child process of its own (this same driver, started with hidden
// options naming the candidate), with a time limit. A crash, an abort or a
// hang is that candidate's failure, with its signal or the timeout, and
// tuning goes on; the children's measurements are ranked in the parent by
// the same rule as in one process.
#pragma once

#include <string>
#include <vector>

#include "tune_problem.hpp"
#include "tunekit/core/error.hpp"
#include "tunekit/graph/graph.hpp"

namespace tunekit::cli {

// The candidates of a built graph, in the order tune adds them: every
// applicable engine with its defaults (heuristic order), then the knob
// sweeps' variants; `sweeps` receives what each sweep chose. Parent and
// child derive the same list from the same graph and registry.
Result<std::vector<TuneCandidate>> list_tune_candidates(const graph::Graph& g,
                                                        std::vector<graph::EngineKnobSweep>& sweeps);

// Measures every candidate in a child and ranks them into p.results.
// `graph_path` is the file as given on the command line. Returns a failure
// when no child could be started at all.
Error run_isolated_candidates(Problem& p, const std::vector<TuneCandidate>& candidates, const std::string& graph_path,
                              const TuneOptions& options, const graph::AutotuneConfig& config);

}  // namespace tunekit::cli
