// What `tunekit tune` was asked (its options) and what it found for one shape
// of one graph file (a Problem), shared by the in-process path and the
// isolated one (tune_isolated.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string>
#include <vector>

#include "tunekit/graph/autotune_config.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"
#include "tunekit/graph/knob.hpp"

namespace tunekit::cli {

// One candidate: an applicable engine with the knob settings it is tried with.
struct TuneCandidate {
  std::int64_t engine_id = -1;
  std::string engine_name;
  std::vector<graph::KnobSetting> knobs;  // empty: the engine's defaults
};

struct TuneOptions {
  std::vector<std::string> graphs;
  std::string output;
  std::string mode = "standard";
  std::string strategy = "run_until_stable";
  int iterations = 0;  // 0: the default of the strategy
  int warmup = 1;
  int race_min_samples = 5;
  double tie_band_percent = 2.0;
  double confidence_percent = 95.0;
  double dispersion_limit_percent = 10.0;
  double settle_timeout_ms = 250.0;
  bool no_result_check = false;
  double result_tolerance = 0.0;  // 0: the tolerance of each output's data type
  std::int64_t workspace_limit = -1;
  std::int64_t memory_budget_mib = 1024;
  bool replace = false;
  bool append = false;
  std::vector<std::string> shape_sets;  // names ("base", a set, "all"); empty: every shape
  std::string device = "cpu";          // "cpu", "hip" or "hip:N": where candidates run
  std::vector<std::string> plugins;     // engine plugin files, after TUNEKIT_ENGINE_PLUGIN_PATH's
  bool json = false;
  // Shapes without a successful candidate are reported, and the exit code
  // stays 0 (tune_graph() without REQUIRE_COMPLETE).
  bool allow_incomplete = false;
  // A winner whose measurement is unreliable fails its shape (exit 1).
  bool require_stable = false;
  bool keep_unless_faster = false;
  // An override file whose stored winners are kept unless beaten, instead
  // of the output's own (--incumbents, implies keep_unless_faster): a kept
  // winner is written to the output, which may start empty (--replace).
  std::string incumbents_file;
  // Seconds for the whole run (0: no budget). Candidates not timed when it
  // runs out are not measured, the shape's winner is written with
  // "complete": false, and later shapes are not tuned; a shape whose entry
  // in the output file is complete is kept, so running again continues.
  double time_budget_s = 0.0;
  // Each candidate is measured in a child process of its own with this time
  // limit, so that its crash, hang or abort is its failure alone.
  bool isolate = false;
  double candidate_timeout_s = 120.0;
  // Set only on the command line of such a child (hidden options): the
  // index of its one candidate in list_tune_candidates() and that
  // candidate's engine id, checked so that a child never measures another.
  int isolated_candidate = -1;
  std::int64_t isolated_engine = -1;
  // The command its messages on standard error begin with.
  std::string program = "tunekit tune";
  // Only these candidates, in this process (`check` measures a stored
  // winner against a new one head to head); empty: every applicable one.
  std::vector<TuneCandidate> only_candidates;
};

struct Problem {
  std::string file;       // the graph file as printed: valid UTF-8
  std::string shape_set;  // "base" (the file's own dims) or a shape set's name
  std::vector<graph::AutotuneResult> results;
  std::vector<graph::EngineKnobSweep> sweeps;  // per applicable engine: the knob values tried
  std::string error;
  int exit_code = 0;
  bool unstable = false;  // --require-stable refused the winner: a failure --allow-incomplete does not excuse
  std::string stored_winner;  // --keep-unless-faster: what became of the entry already stored ("" when none)
  // --time-budget: why the shape was not tuned in this run ("" when it was):
  // its complete entry is already stored, or the budget had run out.
  std::string not_tuned;
  bool budget_spent = false;  // not tuned, or tuned in part, for want of time
};

}  // namespace tunekit::cli
