// One run of `tunekit tune` as a library call: every selected shape of the
// graph files tuned in turn (tune_shape), the winners written to the output,
// and the problems returned for the caller to print (the command) or hand
// on (the Python module); and the JSON form of a tuned shape (`tune --json`).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine_registrations.hpp"
#include "tune_problem.hpp"

namespace tunekit::cli {

struct TuneRun {
  int exit_code = 0;            // as the command exits (exit_codes.hpp)
  std::vector<Problem> problems;  // one per shape tuned, in order
  // Why nothing was tuned (bad options, a graph file that does not parse,
  // no engines): the message the command prints; empty otherwise.
  std::string error;
};

// Tunes options.graphs into options.output. Messages about shapes go to
// standard error as the command prints them; `on_shape` is called after each
// shape (the command prints its table there).
TuneRun tune_graphs(const TuneOptions& options, const EngineRegistrations& engines,
                    const std::function<void(const Problem&)>& on_shape = {});

// A tuned shape as `tune --json` prints it: graph, shape_set, candidates
// (ranked), knob_sweeps and, when set, error, stored_winner and not_tuned.
nlohmann::json problem_json(const Problem& problem);

}  // namespace tunekit::cli
