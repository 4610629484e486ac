// Autotunes graph files on this machine's CPU and persists the winners.
#include "tune_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "candidate_json.hpp"
#include "engine_registrations.hpp"
#include "exit_codes.hpp"
#include "tune_options.hpp"
#include "tune_problem.hpp"
#include "tune_run.hpp"
#include "tune_shape.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"
#include "tunekit/graph/engine_sweep.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/graph/shape_selection.hpp"

namespace tunekit::cli {
namespace {

// One line per knob whose sweep left valid values out or tried only its
// default, and per engine whose knobs were not combined in full.
void print_sweep_notes(const Problem& p) {
  for (const graph::EngineKnobSweep& engine : p.sweeps) {
    for (const graph::KnobSweepValues& knob : engine.knobs) {
      if (knob.rule != graph::KnobSweepRule::SAMPLED && knob.rule != graph::KnobSweepRule::DEFAULT_ONLY) continue;
      fmt::print("  knob '{}' of engine '{}': {}\n", knob.knob_id, engine.engine_name,
                 graph::describe_knob_sweep(knob));
    }
    if (engine.combining != graph::KnobCombining::EVERY_COMBINATION) {
      fmt::print("  engine '{}': the {} combinations of its knobs exceed the limit of {}; {} ({} candidates)\n",
                 engine.engine_name, engine.combinations, graph::kSweepErrorThreshold,
                 engine.combining == graph::KnobCombining::EACH_KNOB_ALONE
                     ? "each knob is swept alone, the others at their defaults"
                     : "only the defaults are tried",
                 engine.variants.size() + 1);
    }
  }
}

// "1.013 [1.004, 1.020] tie": the ratio of medians over the fastest's with
// its interval and verdict; "fastest" for the fastest itself.
std::string against_fastest(const graph::AutotuneResult& r) {
  if (r.verdict_against_fastest.empty()) return "fastest";
  if (std::isnan(r.ratio_to_fastest)) return r.verdict_against_fastest;
  return fmt::format("{:.3f} [{:.3f}, {:.3f}] {}", r.ratio_to_fastest, r.ratio_low, r.ratio_high,
                     r.verdict_against_fastest);
}

std::string status(const graph::AutotuneResult& r) {
  std::string s = r.rank == 0 ? "winner" : "ok";
  if (r.tied_with_fastest) s += r.rank == 0 ? " (tie: first by engine id, knobs)" : " (tie)";
  if (r.eliminated_after_round >= 0) s += fmt::format(" (left the race after round {})", r.eliminated_after_round);
  if (!r.unreliable_reason.empty()) s += " (unreliable: " + r.unreliable_reason + ")";
  return s;
}

void print_table(const Problem& p) {
  fmt::print("{} [{}]\n", p.file, p.shape_set);
  print_sweep_notes(p);
  if (!p.error.empty()) fmt::print("  failed: {}\n", p.error);
  if (!p.not_tuned.empty()) fmt::print("  {}\n", p.not_tuned);
  if (p.results.empty()) return;
  fmt::print("  {:>4}  {:<24} {:<18} {:>12} {:>12} {:>12} {:>6} {:>10} {:>10}  {:<22} {}\n", "rank", "engine",
             "knobs", "min ms", "avg ms", "stddev ms", "iters", "workspace", "compile ms", "vs fastest", "status");
  for (const auto& r : p.results) {
    const std::string knobs = graph::describe_knob_settings(r.knob_settings);
    if (r.succeeded) {
      fmt::print("  {:>4}  {:<24} {:<18} {:>12.6f} {:>12.6f} {:>12.6f} {:>6} {:>10} {:>10.3f}  {:<22} {}\n", r.rank,
                 r.engine_name, knobs, r.min_time_ms, r.avg_time_ms, r.stddev_ms, r.iterations_run, r.workspace_size,
                 r.compile_time_ms, against_fastest(r), status(r));
    } else {
      fmt::print("  {:>4}  {:<24} {:<18} {:>12} {:>12} {:>12} {:>6} {:>10} {:>10}  {:<22} failed: {}\n", "-",
                 r.engine_name, knobs, "-", "-", "-", r.iterations_run, r.workspace_size,
                 r.compiled ? fmt::format("{:.3f}", r.compile_time_ms) : std::string("-"), "-", r.error_message);
    }
  }
}

int run_tune(const TuneOptions& options, const EngineRegistrations& engines) {
  const TuneRun run = tune_graphs(options, engines, [&options](const Problem& p) {
    if (!options.json) print_table(p);
  });
  if (!run.error.empty()) return run.exit_code;
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Problem& p : run.problems) out.push_back(problem_json(p));
    std::cout << internal::json_text(out, 2) << '\n';
  } else if (run.exit_code == 0) {
    fmt::print("wrote {}\n", core::replace_invalid_utf8(options.output));
  }
  return run.exit_code;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines) {
  auto options = std::make_shared<TuneOptions>();
  CLI::App* tune = app.add_subcommand("tune", "Autotune graph files and write the winners to an override file");
  tune->add_option("graphs", options->graphs, "Graph files (TOML)")->required()->check(CLI::ExistingFile);
  tune->add_option("--output,-o", options->output, "Engine-override file (JSON, version 2) to write")->required();
  add_measurement_options(*tune, *options);
  tune->add_option("--shape-set", options->shape_sets,
                   "Tune only this shape of the files, repeatable: a shape set's name, 'base' (the file's own dims) "
                   "or 'all' (default: every shape, the file's own dims first)");
  auto* replace = tune->add_flag("--replace", options->replace, "Delete the file's existing entries first");
  auto* append = tune->add_flag("--append", options->append, "Keep unrelated entries (the default)");
  replace->excludes(append);
  tune->add_flag("--json", options->json, "Print every candidate as JSON");
  auto* keep = tune->add_flag("--keep-unless-faster", options->keep_unless_faster,
                              "Keep the winner already stored for a shape unless the new fastest candidate is "
                              "significantly faster than it (by the comparison and tie band of --tie-band); the "
                              "decision is printed on standard error and given as stored_winner in --json");
  keep->excludes(replace);
  tune->add_option("--incumbents", options->incumbents_file,
                   "Override file whose stored winners keep their place unless significantly slower, as with "
                   "--keep-unless-faster, instead of the output's own; a kept winner is written to the output, which "
                   "--replace may start empty (tune_graph() passes its committed file)")
      ->check(CLI::ExistingFile)
      ->excludes(keep);
  tune->add_flag("--require-stable", options->require_stable,
                 "Fail a shape (exit 1) whose winner's measurement is unreliable: not stable or not decided within "
                 "the cap, dispersion above --dispersion-limit, a timer too coarse or a loaded machine; its winner "
                 "is then not stored");
  // The command line of an isolated candidate's process (hidden).
  tune->add_option("--isolated-candidate", options->isolated_candidate)->group("")->check(CLI::NonNegativeNumber);
  tune->add_option("--isolated-engine", options->isolated_engine)->group("");
  tune->add_option("--time-budget", options->time_budget_s,
                   "Seconds for the whole run: candidates not yet timed when it runs out are not measured, that "
                   "shape's winner is written with \"complete\": false and later shapes are left; shapes whose entry "
                   "in the output file is complete are kept, so the same command run again continues")
      ->check(CLI::Range(0.001, 1e9));
  tune->add_flag("--allow-incomplete", options->allow_incomplete,
                 "Exit 0 when some shapes have no successful candidate (they are still reported)");
  tune->callback([options, &exit_code, &engines] { exit_code = run_tune(*options, engines); });
}

}  // namespace tunekit::cli
