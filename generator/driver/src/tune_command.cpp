// Autotunes graph files on this machine's CPU and persists the winners.
#include "tune_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "engine_registrations.hpp"
#include "exit_codes.hpp"
#include "tune_incumbent.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/knob_json.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/graph/engine_plugin.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"
#include "tunekit/graph/engine_sweep.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_buffers.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::cli {
namespace {

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
  std::vector<std::string> plugins;     // engine plugin files, after TUNEKIT_ENGINE_PLUGIN_PATH's
  bool json = false;
  // Shapes without a successful candidate are reported, and the exit code
  // stays 0 (tune_graph() without REQUIRE_COMPLETE).
  bool allow_incomplete = false;
  // A winner whose measurement is unreliable fails its shape (exit 1).
  bool require_stable = false;
  bool keep_unless_faster = false;
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
};

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

// null for the fastest and failed candidates; NaN figures (too few samples) are null.
nlohmann::json against_fastest_json(const graph::AutotuneResult& r) {
  if (r.verdict_against_fastest.empty()) return nullptr;
  auto number = [](double x) { return std::isnan(x) ? nlohmann::json() : nlohmann::json(x); };
  return {{"ratio", number(r.ratio_to_fastest)},
          {"ratio_low", number(r.ratio_low)},
          {"ratio_high", number(r.ratio_high)},
          {"verdict", r.verdict_against_fastest}};
}

nlohmann::json problem_json(const Problem& p) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& r : p.results) {
    candidates.push_back({{"engine_id", r.engine_id},
                          {"engine_name", r.engine_name},
                          {"knobs", internal::knob_settings_to_json(r.knob_settings)},
                          {"min_time_ms", r.min_time_ms},
                          {"avg_time_ms", r.avg_time_ms},
                          {"stddev_ms", r.stddev_ms},
                          {"iterations_run", r.iterations_run},
                          {"workspace_size", r.workspace_size},
                          {"compile_time_ms", r.compile_time_ms},
                          {"median_time_ms", r.median_time_ms},
                          {"samples_ms", r.samples_ms},
                          {"against_fastest", against_fastest_json(r)},
                          {"tied_with_fastest", r.tied_with_fastest},
                          {"eliminated_after_round", r.eliminated_after_round},
                          {"unreliable_reason", r.unreliable_reason},
                          {"settle_wait_ms", r.settle_wait_ms},
                          {"result_check", r.result_check},
                          {"result_error", r.result_error},
                          {"rank", r.rank},
                          {"succeeded", r.succeeded},
                          {"error_message", r.error_message}});
  }
  nlohmann::json out{{"graph", p.file}, {"candidates", std::move(candidates)}};
  out["shape_set"] = p.shape_set;
  nlohmann::json sweeps = nlohmann::json::array();
  for (const graph::EngineKnobSweep& engine : p.sweeps) sweeps.push_back(sweep_json(engine));
  out["knob_sweeps"] = std::move(sweeps);
  if (!p.error.empty()) out["error"] = p.error;
  if (!p.stored_winner.empty()) out["stored_winner"] = p.stored_winner;
  return out;
}

// Zeroes every buffer, then fills float tensors with random values in [-1, 1).
void fill_inputs(const graph::OperationGraph& og, graph::GraphBuffers& buffers) {
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (platform::DeviceBuffer& buffer : buffers.memory) std::memset(buffer.data(), 0, buffer.size());
  for (const graph::Tensor& t : og.tensors()) {
    if (t->get_is_virtual() || t->get_data_type() != DataType::FLOAT) continue;
    float* data = static_cast<float*>(buffers.pack.at(t->get_uid()));
    const std::int64_t count = t->span_elements().value();  // the graph is validated
    for (std::int64_t i = 0; i < count; ++i) data[i] = uniform(random);
  }
}

// Every applicable engine with the knob settings graph::engine_knob_sweep
// chooses (the all-defaults candidates are already stored); what was chosen
// goes to `sweeps` for the report.
Error add_knob_sweeps(graph::Graph& g, std::vector<graph::EngineKnobSweep>& sweeps) {
  std::vector<graph::EngineConfigInfo> configs;
  TUNEKIT_RETURN_IF_ERROR(g.get_engine_configs(configs));
  std::vector<graph::EngineVariant> variants;
  for (const graph::EngineConfigInfo& config : configs) {
    sweeps.push_back(graph::engine_knob_sweep(config));
    variants.insert(variants.end(), sweeps.back().variants.begin(), sweeps.back().variants.end());
  }
  return variants.empty() ? Error::ok() : g.add_engine_variants(variants);
}

void tune_one(Problem& p, const graph::GraphFile& file, std::optional<std::size_t> shape_set, graph::Handle& handle,
              const graph::AutotuneConfig& config, const graph::AutotuneStorageConfig& storage,
              const TuneOptions& options) {
  auto fail = [&](int code, std::string message) {
    p.exit_code = code;
    p.error = std::move(message);
  };
  Result<graph::Graph> made = graph::make_graph(file, shape_set);
  if (!made.ok()) return fail(2, made.error().message());
  graph::Graph& g = *made;
  if (Error e = g.build_operation_graph(&handle); e.is_bad()) return fail(2, e.message());
  if (Error e = g.add_all_engines(); e.is_bad()) return fail(1, e.message());
  if (Error e = add_knob_sweeps(g, p.sweeps); e.is_bad()) return fail(1, e.message());
  std::int64_t workspace_size = 0;
  if (Error e = g.get_estimated_max_workspace_size(workspace_size); e.is_bad()) return fail(1, e.message());
  if (options.workspace_limit >= 0) workspace_size = options.workspace_limit;
  // Every buffer is checked against the budget before any is allocated.
  Result<graph::GraphBuffers> buffers = graph::allocate_graph_buffers(g.operation_graph(), handle.device(),
                                                                      workspace_size, options.memory_budget_mib << 20);
  if (!buffers.ok()) {
    if (buffers.error().code() != ErrorCode::INVALID_VALUE) return fail(1, buffers.error().message());
    return fail(2, fmt::format("{} (--memory-budget {} MiB)", buffers.error().message(), options.memory_budget_mib));
  }
  fill_inputs(g.operation_graph(), *buffers);
  // With --require-stable the winner is stored only once its measurement is
  // known to be reliable, so an entry already in the file is never replaced
  // by one that is not.
  // With --keep-unless-faster the stored winner is looked up first, and the
  // new one written only once it has beaten it.
  const std::optional<StoredWinner> stored =
      options.keep_unless_faster && !storage.file_path.empty() ? find_stored_winner(storage.file_path, g, handle)
                                                               : std::nullopt;
  const bool write_after = options.require_stable || stored.has_value();
  const graph::AutotuneStorageConfig no_storage;
  Error tuned = g.autotune(&handle, buffers->pack, buffers->workspace, buffers->workspace_size, config,
                           write_after ? no_storage : storage, &p.results);
  if (tuned.is_bad()) {
    // With results the tuning succeeded and the override file failed: INVALID_VALUE
    // is a refusal to append to it (bad input), IO_ERROR an output that cannot be written.
    const bool refused = tuned.code() == ErrorCode::INVALID_VALUE && !p.results.empty();
    return fail(output_exit_code(tuned, refused ? kBadInput : kTuningFailure), tuned.message());
  }
  if (Error e = g.execute(&handle, buffers->pack, buffers->workspace); e.is_bad()) {
    return fail(1, "the winner does not execute: " + e.message());
  }
  const graph::AutotuneResult& winner = p.results.front();
  if (!winner.unreliable_reason.empty()) {
    const std::string why = fmt::format("the winner '{}' {} has an unreliable measurement: {}", winner.engine_name,
                                        graph::describe_knob_settings(winner.knob_settings), winner.unreliable_reason);
    if (options.require_stable) {
      p.unstable = true;
      return fail(kTuningFailure, why + " (--require-stable: not stored)");
    }
    fmt::print(stderr, "tunekit tune: {} [{}]: {}\n", p.file, p.shape_set, why);
  }
  if (stored) {
    const KeepDecision decision = decide_keep(*stored, p.results, handle, config);
    p.stored_winner = decision.why;
    fmt::print(stderr, "tunekit tune: {} [{}]: {}\n", p.file, p.shape_set, decision.why);
    if (decision.keep) return;  // the entry stays as it is
  }
  if (write_after && !storage.file_path.empty()) {
    const graph::OverrideWriteContext context{handle.device(), handle.registry()};
    Result<graph::OverrideWriteReport> written =
        graph::write_autotune_override(g.operation_graph(), winner, context, storage);
    if (!written.ok()) {
      const bool refused = written.error().code() == ErrorCode::INVALID_VALUE;
      return fail(output_exit_code(written.error(), refused ? kBadInput : kTuningFailure), written.error().message());
    }
  }
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
  graph::AutotuneConfig config;
  auto mode = graph::parse_tune_mode(options.mode);
  auto strategy = measure::parse_strategy(options.strategy);
  if (!mode) {
    return fmt::print(stderr, "tunekit tune: --mode: unknown mode '{}' (standard, exhaustive)\n",
                      core::replace_invalid_utf8(options.mode)),
           2;
  }
  if (!strategy) {
    return fmt::print(stderr,
                      "tunekit tune: --strategy: unknown strategy '{}' (fixed_average, run_until_stable, race)\n",
                      core::replace_invalid_utf8(options.strategy)),
           2;
  }
  config.mode = *mode;
  config.strategy = *strategy;
  config.warmup_iterations = options.warmup;
  config.race_min_samples = options.race_min_samples;
  config.tie_band = options.tie_band_percent / 100.0;
  config.confidence = options.confidence_percent / 100.0;
  config.dispersion_limit = options.dispersion_limit_percent / 100.0;
  config.settle_timeout_ms = options.settle_timeout_ms;
  config.check_results = !options.no_result_check;
  config.result_tolerance = options.result_tolerance;
  if (options.iterations > 0) {
    if (config.strategy == graph::AutotuneStrategy::FIXED_AVERAGE) {
      config.timed_iterations = options.iterations;
    } else {
      config.max_iterations = options.iterations;
    }
  }
  if (Error e = graph::validate(config); e.is_bad()) return fmt::print(stderr, "tunekit tune: {}\n", e.message()), 2;

  auto registry = std::make_shared<graph::EngineRegistry>();
  if (Error e = register_engines(engines, *registry); e.is_bad()) {
    return fmt::print(stderr, "tunekit tune: {}\n", e.message()), 1;
  }
  // A refused plugin is reported and tuning goes on with the other engines.
  std::vector<std::string> plugins = graph::engine_plugin_path();
  plugins.insert(plugins.end(), options.plugins.begin(), options.plugins.end());
  for (const graph::EnginePluginLoad& load : graph::load_engine_plugins(plugins, *registry)) {
    if (!load.loaded) {
      fmt::print(stderr, "tunekit tune: plugin {} refused: {}\n", core::replace_invalid_utf8(load.path),
                 core::replace_invalid_utf8(load.reason));
    }
  }
  platform::CpuDevice device;
  Result<std::unique_ptr<graph::Handle>> handle = graph::Handle::create(device, registry);
  if (!handle.ok()) return fmt::print(stderr, "tunekit tune: {}\n", handle.error().message()), 1;

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
      graph::AutotuneStorageConfig storage{options.output, options.replace && first_write};
      tune_one(p, *file, set, **handle, config, storage, options);
      if (p.exit_code == 0) first_write = false;
      if (p.unstable || !(options.allow_incomplete && p.exit_code == kTuningFailure)) {
        exit_code = std::max(exit_code, p.exit_code);
      }
      if (!options.json) print_table(p);
      if (!p.error.empty()) {
        fmt::print(stderr, "tunekit tune: {} [{}]: {}\n", p.file, p.shape_set, p.error);
      }
      if (!p.results.empty()) fmt::print(stderr, "tune: {} [{}]: {}\n", p.file, p.shape_set, progress_line(p));
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
  // --replace promises a file of this run's winners only, even when none won.
  if (options.replace && first_write && exit_code == 0) {
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
  tune->add_option("--mode", options->mode, "standard or exhaustive")->capture_default_str();
  tune->add_option("--strategy", options->strategy, "fixed_average, run_until_stable or race")->capture_default_str();
  tune->add_option("--iterations", options->iterations,
                   "Timed iterations (fixed_average), the iteration cap (run_until_stable) or the round cap (race)")
      ->check(CLI::PositiveNumber);
  tune->add_option("--race-min-samples", options->race_min_samples,
                   "race: samples every candidate has before the first elimination")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  tune->add_option("--tie-band", options->tie_band_percent,
                   "Percent within which candidates tie with the fastest; a tie is won by the lower engine id, then "
                   "knobs (0: no ties, the order is by min time)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 99.0));
  tune->add_option("--confidence", options->confidence_percent,
                   "Percent confidence of the comparison that calls a candidate slower, tied or undecided")
      ->capture_default_str()
      ->check(CLI::Range(50.0, 99.9));
  tune->add_option("--warmup", options->warmup, "Warm-up executions per candidate")->check(CLI::NonNegativeNumber);
  tune->add_option("--workspace-limit", options->workspace_limit,
                   "Bytes of workspace; candidates needing more are skipped (default: the largest estimate)")
      ->check(CLI::NonNegativeNumber);
  tune->add_option("--memory-budget", options->memory_budget_mib,
                   "MiB that one shape's buffers (inputs, outputs, workspace) may take together; a shape needing "
                   "more is refused before anything is allocated")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  tune->add_option("--shape-set", options->shape_sets,
                   "Tune only this shape of the files, repeatable: a shape set's name, 'base' (the file's own dims) "
                   "or 'all' (default: every shape, the file's own dims first)");
  auto* replace = tune->add_flag("--replace", options->replace, "Delete the file's existing entries first");
  auto* append = tune->add_flag("--append", options->append, "Keep unrelated entries (the default)");
  replace->excludes(append);
  tune->add_flag("--json", options->json, "Print every candidate as JSON");
  tune->add_option("--plugin", options->plugins,
                   "Engine plugin (shared library) whose engines are candidates too, repeatable; loaded after those "
                   "of TUNEKIT_ENGINE_PLUGIN_PATH");
  tune->add_option("--dispersion-limit", options->dispersion_limit_percent,
                   "Percent dispersion (1.4826 x median absolute deviation over the median) above which a candidate's "
                   "measurement is unreliable")
      ->capture_default_str()
      ->check(CLI::Range(0.000001, 1000.0));
  tune->add_option("--settle-timeout", options->settle_timeout_ms,
                   "Milliseconds to wait, before each candidate is timed, for the threads of the library timed before "
                   "it to sleep (0: never wait; a candidate timed while other threads ran is unreliable)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60000.0));
  tune->add_flag("--no-result-check", options->no_result_check,
                 "Do not compare each candidate's results with a reference engine's before timing it (by default "
                 "one that disagrees fails with 'wrong result' and its largest error)");
  tune->add_option("--result-tolerance", options->result_tolerance,
                   "Largest error (relative, absolute below 1) of the result check (default: 1e-3 for float, 1e-9 "
                   "for double, 2e-2 for float16, 6e-2 for bfloat16)")
      ->check(CLI::Range(0.0, 1e6));
  auto* keep = tune->add_flag("--keep-unless-faster", options->keep_unless_faster,
                              "Keep the winner already stored for a shape unless the new fastest candidate is "
                              "significantly faster than it (by the comparison and tie band of --tie-band); the "
                              "decision is printed on standard error and given as stored_winner in --json");
  keep->excludes(replace);
  tune->add_flag("--require-stable", options->require_stable,
                 "Fail a shape (exit 1) whose winner's measurement is unreliable: not stable or not decided within "
                 "the cap, dispersion above --dispersion-limit, a timer too coarse or a loaded machine; its winner "
                 "is then not stored");
  tune->add_flag("--allow-incomplete", options->allow_incomplete,
                 "Exit 0 when some shapes have no successful candidate (they are still reported)");
  tune->callback([options, &exit_code, &engines] { exit_code = run_tune(*options, engines); });
}

}  // namespace tunekit::cli
