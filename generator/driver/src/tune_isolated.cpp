#include "tune_isolated.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "candidate_json.hpp"
#include "child_process.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"

namespace tunekit::cli {
namespace {

// The child's command line: this driver's `tune` on the one shape and the
// one candidate, with every option that changes how it is measured.
std::vector<std::string> child_arguments(const std::string& executable, const std::string& graph_path,
                                         const Problem& p, std::size_t index, const TuneCandidate& candidate,
                                         const TuneOptions& o) {
  std::vector<std::string> a{executable,
                             "tune",
                             graph_path,
                             "--output",
                             "/dev/null",
                             "--json",
                             "--shape-set",
                             p.shape_set,
                             "--mode",
                             o.mode,
                             "--strategy",
                             o.strategy,
                             "--warmup",
                             fmt::format("{}", o.warmup),
                             "--race-min-samples",
                             fmt::format("{}", o.race_min_samples),
                             "--tie-band",
                             fmt::format("{}", o.tie_band_percent),
                             "--confidence",
                             fmt::format("{}", o.confidence_percent),
                             "--dispersion-limit",
                             fmt::format("{}", o.dispersion_limit_percent),
                             "--settle-timeout",
                             fmt::format("{}", o.settle_timeout_ms),
                             "--memory-budget",
                             fmt::format("{}", o.memory_budget_mib),
                             "--isolated-candidate",
                             fmt::format("{}", index),
                             "--isolated-engine",
                             fmt::format("{}", candidate.engine_id)};
  if (o.iterations > 0) a.insert(a.end(), {"--iterations", fmt::format("{}", o.iterations)});
  if (o.no_result_check) a.push_back("--no-result-check");
  if (o.result_tolerance > 0) a.insert(a.end(), {"--result-tolerance", fmt::format("{}", o.result_tolerance)});
  if (o.workspace_limit >= 0) a.insert(a.end(), {"--workspace-limit", fmt::format("{}", o.workspace_limit)});
  for (const std::string& plugin : o.plugins) a.insert(a.end(), {"--plugin", plugin});
  a.insert(a.end(), {"--device", o.device});
  return a;
}

// The child's one candidate from its `tune --json` output, or why there is none.
std::string read_child_candidate(const ChildRun& run, graph::AutotuneResult& result) {
  const nlohmann::json out = nlohmann::json::parse(run.out, nullptr, false);
  if (out.is_discarded() || !out.is_array() || out.size() != 1 || !out[0].is_object()) {
    return "its output is not the JSON of one shape";
  }
  const auto candidates = out[0].find("candidates");
  if (candidates == out[0].end() || !candidates->is_array() || candidates->size() != 1) {
    const auto error = out[0].find("error");
    return error != out[0].end() && error->is_string() ? error->get<std::string>()
                                                       : std::string("its output has no candidate");
  }
  if (Error e = read_candidate_json((*candidates)[0], result); e.is_bad()) return e.message();
  return {};
}

}  // namespace

Result<std::vector<TuneCandidate>> list_tune_candidates(const graph::Graph& g,
                                                        std::vector<graph::EngineKnobSweep>& sweeps) {
  std::vector<graph::EngineConfigInfo> configs;
  TUNEKIT_RETURN_IF_ERROR(g.get_engine_configs(configs));
  std::vector<TuneCandidate> candidates;
  for (const graph::EngineConfigInfo& config : configs) {
    candidates.push_back({config.engine_id, config.engine_name, {}});
    sweeps.push_back(graph::engine_knob_sweep(config));
  }
  for (const graph::EngineKnobSweep& sweep : sweeps) {
    for (const graph::EngineVariant& variant : sweep.variants) {
      TuneCandidate c{variant.engine_id, sweep.engine_name, {}};
      for (const auto& [id, value] : variant.knob_settings) c.knobs.push_back({id, value});
      // A variant the engine refuses for this graph is no candidate, as
      // add_engine_variants skips it in one process.
      if (Error refused = g.check_engine_variant(variant); refused.code() == ErrorCode::NOT_SUPPORTED) {
        log::info("tune: engine '{}' with {} skipped: {}", c.engine_name, graph::describe_knob_settings(c.knobs),
                  refused.message());
        continue;
      }
      candidates.push_back(std::move(c));
    }
  }
  return candidates;
}

Error run_isolated_candidates(Problem& p, const std::vector<TuneCandidate>& candidates, const std::string& graph_path,
                              const TuneOptions& options, const graph::AutotuneConfig& config) {
  const std::string executable = own_executable();
  if (executable.empty()) return {ErrorCode::IO_ERROR, "--isolate: this system does not say which program is running"};
  const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(options.candidate_timeout_s * 1000.0));
  p.results.clear();
  bool budget_ran_out = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const TuneCandidate& c = candidates[i];
    graph::AutotuneResult r;
    r.engine_id = c.engine_id;
    r.engine_name = c.engine_name;
    r.knob_settings = c.knobs;
    r.mode_used = config.mode;
    r.strategy_used = config.strategy;
    r.workspace_size = -1;
    if (config.deadline && std::chrono::steady_clock::now() >= *config.deadline) {
      r.succeeded = false;
      r.error_message = graph::kBudgetSpentMessage;
      p.results.push_back(std::move(r));
      budget_ran_out = true;
      continue;
    }
    const ChildRun run = run_child(child_arguments(executable, graph_path, p, i, c, options), limit);
    if (!run.started) return {ErrorCode::IO_ERROR, "--isolate: " + describe_child_failure(run, limit)};
    // A child that exited by itself printed its candidate, failed or not;
    // one that was killed or timed out printed nothing to trust.
    std::string unread = run.exited ? read_child_candidate(run, r) : describe_child_failure(run, limit);
    if (run.exited && !unread.empty()) unread = describe_child_failure(run, limit) + " (" + unread + ")";
    if (!unread.empty()) {
      r.succeeded = false;
      r.error_message = "isolated candidate " + unread;
      fmt::print(stderr, "tune: {} [{}]: candidate '{}' {} failed in its process: {}\n", p.file, p.shape_set,
                 c.engine_name, graph::describe_knob_settings(c.knobs), core::replace_invalid_utf8(unread));
    }
    p.results.push_back(std::move(r));
  }
  if (budget_ran_out) {
    for (graph::AutotuneResult& r : p.results) r.budget_ran_out = true;
  }
  std::string fallback;
  const measure::ComparisonConfig comparison = graph::to_comparison_config(config);
  graph::rank_autotune_results(p.results, nullptr, &fallback, &comparison);
  return Error::ok();
}

}  // namespace tunekit::cli
