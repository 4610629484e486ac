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

nlohmann::json sweep_json(const graph::EngineKnobSweep& engine) {
  nlohmann::json knobs = nlohmann::json::array();
  for (const graph::KnobSweepValues& knob : engine.knobs) {
    nlohmann::json values = nlohmann::json::array();
    for (const graph::KnobValue& v : knob.values) values.push_back(internal::value_to_json(v));
    nlohmann::json left_out = nlohmann::json::array();
    for (const graph::KnobValueRun& run : knob.left_out) left_out.push_back({run.first, run.last});
    knobs.push_back({{"knob_id", knob.knob_id},
                     {"rule", graph::to_string(knob.rule)},
                     {"default", internal::value_to_json(knob.default_value)},
                     {"values", std::move(values)},
                     {"valid_count", knob.valid_count ? nlohmann::json(*knob.valid_count) : nlohmann::json()},
                     {"step", knob.step},
                     {"left_out_count", knob.left_out_count()},
                     {"left_out", std::move(left_out)}});
  }
  return {{"engine_id", engine.engine_id},
          {"engine_name", engine.engine_name},
          {"combinations", engine.combinations},
          {"combining", graph::to_string(engine.combining)},
          {"candidates", engine.variants.size() + 1},
          {"knobs", std::move(knobs)}};
}

nlohmann::json problem_json(const Problem& p) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& r : p.results) {
    candidates.push_back(candidate_json(r));
  }
  nlohmann::json out{{"graph", p.file}, {"candidates", std::move(candidates)}};
  out["shape_set"] = p.shape_set;
  nlohmann::json sweeps = nlohmann::json::array();
  for (const graph::EngineKnobSweep& engine : p.sweeps) sweeps.push_back(sweep_json(engine));
  out["knob_sweeps"] = std::move(sweeps);
  if (!p.error.empty()) out["error"] = p.error;
  if (!p.stored_winner.empty()) out["stored_winner"] = p.stored_winner;
  if (!p.not_tuned.empty()) out["not_tuned"] = p.not_tuned;
  out["budget_spent"] = p.budget_spent;
  return out;
}

// "12 candidates, winner 'cpu_matmul_blocked' tile=64 0.0123 ms" or the failure.
std::string progress_line(const Problem& p) {
  const std::size_t succeeded = static_cast<std::size_t>(
      std::count_if(p.results.begin(), p.results.end(), [](const graph::AutotuneResult& r) { return r.succeeded; }));
  std::string line = fmt::format("{} candidates, {} succeeded", p.results.size(), succeeded);
  for (const graph::AutotuneResult& r : p.results) {
    if (r.succeeded && r.rank == 0) {
      line += fmt::format(", winner '{}' {} {:.6f} ms", r.engine_name, graph::describe_knob_settings(r.knob_settings),
                          r.min_time_ms);
    }
  }
  if (succeeded > 0 && !p.error.empty()) line += ", then failed";
  return line;
}

int run_tune(const TuneOptions& options, const EngineRegistrations& engines) {
  Result<graph::AutotuneConfig> config = autotune_config_from(options);
  if (!config.ok()) return fmt::print(stderr, "tunekit tune: {}\n", config.error().message()), 2;
  if (options.time_budget_s > 0) {
    config->deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(options.time_budget_s));
  }
  const bool child = options.isolated_candidate >= 0;
  Result<std::unique_ptr<TuneSession>> session = open_tune_session(options, engines);
  if (!session.ok()) return fmt::print(stderr, "tunekit tune: {}\n", session.error().message()), 1;
  graph::Handle& handle = *(*session)->handle;

  std::vector<Problem> problems;
  bool first_write = true;
  int exit_code = 0;
  for (const std::string& path : options.graphs) {
    Result<graph::GraphFile> file = graph::read_graph_file(path);
    if (!file.ok()) {
      fmt::print(stderr, "tunekit tune: {}\n", file.error().message());
      return 2;
    }
    Result<std::vector<std::optional<std::size_t>>> sets = graph::select_shapes(*file, options.shape_sets);
    if (!sets.ok()) {
      fmt::print(stderr, "tunekit tune: {}\n", sets.error().message());
      return 2;
    }
    for (const auto& set : *sets) {
      Problem p;
      p.file = core::replace_invalid_utf8(path);
      p.shape_set = graph::shape_name(*file, set);
      // An isolated child measures; its parent writes.
      const graph::AutotuneStorageConfig storage =
          child ? graph::AutotuneStorageConfig{} : graph::AutotuneStorageConfig{options.output, options.replace && first_write};
      tune_shape(p, *file, path, set, handle, *config, storage, options);
      if (p.exit_code == 0 && p.not_tuned.empty()) first_write = false;
      if (p.unstable || !(options.allow_incomplete && p.exit_code == kTuningFailure)) {
        exit_code = std::max(exit_code, p.exit_code);
      }
      if (!options.json) print_table(p);
      if (!p.error.empty()) {
        fmt::print(stderr, "tunekit tune: {} [{}]: {}\n", p.file, p.shape_set, p.error);
      }
      if (!p.results.empty()) fmt::print(stderr, "tune: {} [{}]: {}\n", p.file, p.shape_set, progress_line(p));
      if (!p.not_tuned.empty()) fmt::print(stderr, "tune: {} [{}]: {}\n", p.file, p.shape_set, p.not_tuned);
      problems.push_back(std::move(p));
    }
  }
  std::vector<std::string> incomplete;
  for (const Problem& p : problems) {
    if (p.exit_code == kTuningFailure && !p.unstable) incomplete.push_back(fmt::format("{} [{}]", p.file, p.shape_set));
  }
  if (!incomplete.empty()) {
    fmt::print(stderr, "tunekit tune: no successful candidate for: {}{}\n", fmt::join(incomplete, ", "),
               options.allow_incomplete ? " (allowed: --allow-incomplete)" : "");
  }
  const auto spent = std::count_if(problems.begin(), problems.end(), [](const Problem& p) { return p.budget_spent; });
  if (spent > 0) {
    fmt::print(stderr,
               "tunekit tune: the time budget of {:g} s ran out: {} of {} shapes not tuned or tuned in part (their "
               "entries say \"complete\": false); run the same command again to continue\n",
               options.time_budget_s, spent, problems.size());
  }
  // --replace promises a file of this run's winners only, even when none won.
  if (options.replace && first_write && exit_code == 0 && !child) {
    Result<std::size_t> emptied = graph::merge_override_files({}, options.output);
    if (!emptied.ok()) {
      fmt::print(stderr, "tunekit tune: {}\n", emptied.error().message());
      exit_code = output_exit_code(emptied.error(), kTuningFailure);
    }
  }
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Problem& p : problems) out.push_back(problem_json(p));
    std::cout << internal::json_text(out, 2) << '\n';
  } else if (exit_code == 0) {
    fmt::print("wrote {}\n", core::replace_invalid_utf8(options.output));
  }
  return exit_code;
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
