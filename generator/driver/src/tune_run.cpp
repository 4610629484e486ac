#include "tune_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "candidate_json.hpp"
#include "exit_codes.hpp"
#include "progress_bar.hpp"
#include "tune_options.hpp"
#include "tune_shape.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"
#include "tunekit/graph/engine_sweep.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/internal/value_json.hpp"

namespace tunekit::cli {
namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

TuneRun tune_graphs(const TuneOptions& options, const EngineRegistrations& engines,
                    const std::function<void(const Problem&)>& on_shape) {
  TuneRun run;
  const auto refuse = [&run](int code, std::string message) {
    fmt::print(stderr, "tunekit tune: {}\n", message);
    run.exit_code = code;
    run.error = std::move(message);
    return std::move(run);
  };
  Result<graph::AutotuneConfig> config = autotune_config_from(options);
  if (!config.ok()) return refuse(kBadInput, config.error().message());
  if (options.time_budget_s > 0) {
    config->deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(options.time_budget_s));
  }
  const bool child = options.isolated_candidate >= 0;
  Result<std::unique_ptr<TuneSession>> session = open_tune_session(options, engines);
  if (!session.ok()) {
    return refuse(session.error().code() == ErrorCode::INVALID_VALUE ? kBadInput : kTuningFailure,
                  session.error().message());
  }
  graph::Handle& handle = *(*session)->handle;

  std::vector<Problem>& problems = run.problems;
  bool first_write = true;
  int& exit_code = run.exit_code;
  // Every graph file is read and its shapes selected first: a bad one stops
  // the run before anything is measured, and the progress bar knows its total.
  std::vector<std::pair<graph::GraphFile, std::vector<std::optional<std::size_t>>>> work;
  std::size_t total = 0;
  for (const std::string& path : options.graphs) {
    Result<graph::GraphFile> file = graph::read_graph_file(path);
    if (!file.ok()) return refuse(kBadInput, file.error().message());
    Result<std::vector<std::optional<std::size_t>>> sets = graph::select_shapes(*file, options.shape_sets);
    if (!sets.ok()) return refuse(kBadInput, sets.error().message());
    total += sets->size();
    work.emplace_back(std::move(file).value(), std::move(sets).value());
  }
  // On a terminal a bar (the lines below are printed above it); an isolated
  // child reports to its parent instead.
  std::optional<ProgressBar> bar;
  if (!child) bar.emplace("shapes", total);
  if (bar && !bar->drawing_bar()) bar.reset();
  for (std::size_t g = 0; g < options.graphs.size(); ++g) {
    const std::string& path = options.graphs[g];
    const graph::GraphFile* file = &work[g].first;
    for (const auto& set : work[g].second) {
      Problem p;
      p.file = core::replace_invalid_utf8(path);
      p.shape_set = graph::shape_name(*file, set);
      // An isolated child measures; its parent writes.
      const graph::AutotuneStorageConfig storage =
          child ? graph::AutotuneStorageConfig{} : graph::AutotuneStorageConfig{options.output, options.replace && first_write};
      const std::string label = fmt::format("{} [{}]", p.file, p.shape_set);
      if (bar) bar->start(label);
      tune_shape(p, *file, path, set, handle, *config, storage, options);
      if (bar) bar->clear();
      if (p.exit_code == 0 && p.not_tuned.empty()) first_write = false;
      if (p.unstable || !(options.allow_incomplete && p.exit_code == kTuningFailure)) {
        exit_code = std::max(exit_code, p.exit_code);
      }
      if (on_shape) on_shape(p);
      if (!p.error.empty()) {
        fmt::print(stderr, "tunekit tune: {} [{}]: {}\n", p.file, p.shape_set, p.error);
      }
      if (!p.results.empty() && !bar) fmt::print(stderr, "tune: {} [{}]: {}\n", p.file, p.shape_set, progress_line(p));
      if (!p.not_tuned.empty()) fmt::print(stderr, "tune: {} [{}]: {}\n", p.file, p.shape_set, p.not_tuned);
      if (bar) bar->finish(label, p.results.empty() ? (p.exit_code == 0 ? "tuned" : "failed") : progress_line(p));
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
  return run;
}


}  // namespace tunekit::cli
