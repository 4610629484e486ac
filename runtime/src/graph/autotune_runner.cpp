// The autotune run: one candidate per plan spec or compiled plan, each ending
// with exactly one disposition (barred, filtered, failed compile or
// finalize, exceeds limit, failed warm-up or benchmark, or timed), ranking
// and the selection of the winner for execute().
#include <fmt/format.h>

#include <stdlib.h>

#include <algorithm>
#include <thread>

#include "autotune_runner.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/measure/race.hpp"
#include "tunekit/measure/statistics.hpp"

namespace tunekit::graph::detail {
namespace {

void settle(Candidate& candidate, std::string message) {
  candidate.settled = true;
  candidate.result.succeeded = false;
  candidate.result.rank = -1;
  candidate.result.compiled_plan_index = -1;
  candidate.result.error_message = std::move(message);
}

AutotuneResult identity(const ExecutionPlan& plan, const AutotuneConfig& config) {
  AutotuneResult result;
  result.engine_id = plan.engine_id;
  result.engine_name = plan.engine_name;
  result.knob_settings = plan.knob_settings;
  result.estimated_workspace_size = plan.estimated_workspace;
  result.compiled = plan.compiled();
  result.workspace_size = plan.compiled() ? plan.workspace_size : -1;
  result.compile_time_ms = plan.compiled() ? plan.compile_ms : 0.0;
  result.mode_used = config.mode;
  result.strategy_used = config.strategy;
  result.supports_exhaustive = plan.engine && plan.engine->descriptor().supports_exhaustive();
  return result;
}

std::vector<Candidate> spec_candidates(const Graph::Impl& g, const AutotuneConfig& config) {
  std::vector<Candidate> candidates;
  for (const PlanSpec& spec : g.specs.specs()) {
    Candidate c;
    c.owned = std::make_unique<ExecutionPlan>(
        make_plan(g.registry->find(spec.engine_id), spec.engine_id, spec.knob_settings, spec.estimated_workspace_size));
    c.plan = c.owned.get();
    c.result = identity(*c.plan, config);
    candidates.push_back(std::move(c));
  }
  return candidates;
}

std::vector<Candidate> plan_candidates(Graph::Impl& g, const AutotuneConfig& config) {
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < g.plans.size(); ++i) {
    Candidate c;
    c.plan = &g.plans[i];
    c.plan_index = static_cast<int>(i);
    c.result = identity(*c.plan, config);
    candidates.push_back(std::move(c));
  }
  return candidates;
}

bool filtered_out(const AutotuneConfig& config, std::int64_t engine_id) {
  const auto& filter = config.engine_id_filter;
  return !filter.empty() && std::find(filter.begin(), filter.end(), engine_id) == filter.end();
}

// Ranked results of every candidate, copied out when asked for.
void publish(std::vector<Candidate>& candidates, const AutotuneConfig& config, std::vector<AutotuneResult>* out,
             std::vector<AutotuneResult>& ranked) {
  ranked.clear();
  for (auto& c : candidates) ranked.push_back(c.result);
  std::string fallback;
  const measure::ComparisonConfig comparison = to_comparison_config(config);
  rank_autotune_results(ranked, config.ranking_fn, &fallback, &comparison);
  if (!fallback.empty()) log::warn("autotune: ranking by min_time_ms instead: {}", fallback);
  if (out) *out = ranked;
}

void prime_all(std::vector<Candidate>& candidates, const Graph::Impl& g, const AutotuneRequest& request,
               std::string& abort_message) {
  int primed = 0, skipped = 0, failed = 0, unsupported = 0;
  for (auto& c : candidates) {
    if (c.settled) continue;
    if (!c.result.supports_exhaustive) {
      ++unsupported;
      continue;
    }
    const PrimingOutcome outcome = prime_candidate(*c.plan, g.operation_graph, request);
    if (outcome.status == PrimingStatus::PRIMED) {
      ++primed;
      c.result.ran_exhaustive = true;
      continue;
    }
    c.result.exhaustive_not_run_reason = outcome.detail;
    if (outcome.status == PrimingStatus::SKIPPED_WORKSPACE) {
      ++skipped;
      continue;
    }
    ++failed;
    if (request.config.priming_failure_policy == PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE) {
      abort_message = fmt::format("autotune: priming failed for '{}' (engine id {}): {}", c.plan->name(),
                                  c.result.engine_id, outcome.detail);
      settle(c, "priming failed: " + outcome.detail);
      for (auto& other : candidates) {
        if (!other.settled) settle(other, "not run: autotune stopped after a priming failure");
      }
      break;
    }
    log::warn("autotune: '{}': {}; benchmarking it unprimed", c.plan->name(), outcome.detail);
  }
  log::info("autotune: priming: {} primed, {} skipped for workspace, {} failed, {} without exhaustive support",
            primed, skipped, failed, unsupported);
}

void compile_all(std::vector<Candidate>& candidates, const Graph::Impl& g) {
  int compiled = 0, failed = 0, next_index = 0;
  for (auto& c : candidates) {
    if (c.settled) continue;
    if (compile_plan(*c.plan, g.operation_graph, *g.device).is_bad()) {
      ++failed;
      settle(c, c.plan->failure);
      log::warn("autotune: '{}' (engine id {}): {}", c.plan->name(), c.result.engine_id, c.plan->failure);
      continue;
    }
    ++compiled;
    c.plan_index = next_index++;
    c.result.compiled = true;
    c.result.workspace_size = c.plan->workspace_size;
    c.result.compile_time_ms = c.plan->compile_ms;
  }
  log::info("autotune: compilation: {} compiled, {} failed", compiled, failed);
}

// Post-compile exclusions: the deselect workspace threshold (plan-spec path;
// the compiled-plan path applied it in build_plans) and the call's limit.
void check_workspaces(std::vector<Candidate>& candidates, const Graph::Impl& g, const AutotuneRequest& request,
                      bool spec_path) {
  for (auto& c : candidates) {
    if (c.settled) continue;
    const std::int64_t workspace = c.plan->workspace_size;
    if (spec_path) {
      if (auto reason = g.deselection.workspace_reason(workspace)) {
        settle(c, *reason);
        c.exclusion = Exclusion::WORKSPACE_DESELECTED;
        log::info("autotune: '{}' not benchmarked: {}", c.plan->name(), *reason);
        continue;
      }
    }
    if (request.workspace_limit && workspace > *request.workspace_limit) {
      const std::int64_t limit = *request.workspace_limit;
      if (c.result.estimated_workspace_size <= limit) {
        log::warn("autotune: '{}' skipped: compiled workspace {} bytes exceeds limit {} bytes although the estimate "
                  "({} bytes) fitted",
                  c.plan->name(), workspace, limit, c.result.estimated_workspace_size);
      }
      settle(c, fmt::format("skipped: compiled workspace {} bytes exceeds limit {} bytes (estimate {} bytes)", workspace,
                            limit, c.result.estimated_workspace_size));
    }
  }
}

// A machine busy with other work gives times that do not hold: the reason,
// or "" when the load average is at most the logical CPUs (or unknown).
std::string machine_load_reason() {
  double load[1] = {0.0};
  const unsigned cpus = std::thread::hardware_concurrency();
  if (getloadavg(load, 1) != 1 || cpus == 0 || load[0] <= static_cast<double>(cpus)) return "";
  return fmt::format("the load average {:.2f} was above the {} logical CPUs when autotune started", load[0], cpus);
}

// Why a succeeded measurement should not be trusted ("" when nothing was
// seen); `undecided_race` says the race hit its round cap with this
// candidate still in it.
std::string unreliable_reason(const BenchmarkOutcome& outcome, const AutotuneConfig& config, bool undecided_race) {
  const auto& m = outcome.measured;
  std::vector<std::string> reasons;
  if (config.strategy == AutotuneStrategy::RUN_UNTIL_STABLE && !m.converged) {
    reasons.push_back(fmt::format("did not stabilise within {} iterations (the last {} never within {:g}%)",
                                  m.iterations_run, config.window_size, config.stability_threshold * 100.0));
  }
  if (undecided_race) reasons.push_back(fmt::format("the race was not decided within {} rounds", config.max_iterations));
  // Robust dispersion: the scaled median absolute deviation over the median,
  // so that one preempted sample among steady ones does not count (the race
  // and the comparison already look at medians).
  if (m.samples.size() >= 2) {
    const double dispersion = 1.4826 * measure::median_absolute_deviation(m.samples) / measure::median(m.samples);
    if (dispersion > config.dispersion_limit) {
      reasons.push_back(fmt::format("dispersion {:.1f}% above the limit of {:g}%", dispersion * 100.0,
                                    config.dispersion_limit * 100.0));
    }
  }
  if (outcome.batch_capped) {
    reasons.push_back(fmt::format("the timer is too coarse: batches of {} executions were still too short",
                                  outcome.batch_size));
  }
  if (!outcome.settling.unsettled.empty()) {
    reasons.push_back("other threads of the process kept running while it was timed: " + outcome.settling.unsettled);
  }
  return fmt::format("{}", fmt::join(reasons, "; "));
}

// Copies a timing outcome into the candidate's result and logs it.
void record(Candidate& c, const BenchmarkOutcome& outcome, const AutotuneConfig& config,
            bool undecided_race = false) {
  const auto& m = outcome.measured;
  c.result.compiled_plan_index = c.plan_index;
  c.result.iterations_run = m.iterations_run;
  c.result.converged = m.converged;
  c.result.batch_size = outcome.batch_size;
  c.result.calibration_executions = outcome.calibration_executions;
  c.result.rewarm_executions = outcome.rewarm_executions;
  c.result.min_time_ms = m.min_ms;
  c.result.avg_time_ms = m.avg_ms;
  c.result.stddev_ms = m.stddev_ms;
  c.result.samples_ms = m.samples;
  c.result.median_time_ms = m.samples.empty() ? 0.0 : measure::median(m.samples);
  c.result.settle_wait_ms = outcome.settling.waited_ms;
  if (!outcome.failure.empty()) {
    c.result.succeeded = false;
    c.result.error_message = outcome.failure;
    log::warn("autotune: '{}' (engine id {}) failed: {}", c.plan->name(), c.result.engine_id, outcome.failure);
    return;
  }
  c.result.succeeded = true;
  c.result.unreliable_reason = unreliable_reason(outcome, config, undecided_race);
  if (!c.result.unreliable_reason.empty()) {
    log::info("autotune: '{}': unreliable measurement: {}", c.plan->name(), c.result.unreliable_reason);
  }
  if (outcome.settling.waited_ms > 0.0) {
    log::debug("autotune: '{}': waited {:.1f} ms in all for the other threads to sleep before its runs", c.plan->name(),
               outcome.settling.waited_ms);
  }
  if (outcome.batch_size > 1) {
    log::info("autotune: '{}': one execution is too short for the timer: timed in batches of {} ({} extra "
              "executions to choose the batch)",
              c.plan->name(), outcome.batch_size, outcome.calibration_executions);
  }
  log::info("autotune: '{}': min {:.6f} ms, median {:.6f} ms, avg {:.6f} ms, stddev {:.6f} ms, {} iterations, {} "
            "(batch of {})",
            c.plan->name(), m.min_ms, c.result.median_time_ms, m.avg_ms, m.stddev_ms, m.iterations_run,
            m.converged ? "converged" : "not converged", outcome.batch_size);
}

bool out_of_time(const AutotuneConfig& config) {
  return config.deadline && std::chrono::steady_clock::now() >= *config.deadline;
}

void benchmark_one_by_one(std::vector<Candidate*>& pending, const AutotuneRequest& request) {
  for (Candidate* c : pending) {
    if (out_of_time(request.config)) {
      settle(*c, kBudgetSpentMessage);
      continue;
    }
    log::info("autotune: benchmarking '{}' (engine id {}, plan {})", c->plan->name(), c->result.engine_id,
              c->plan_index);
    record(*c, benchmark_plan(*c->plan, request), request.config);
  }
}

// RACE: every candidate is warmed up first, then the race interleaves their
// timed samples and drops the slower ones.
void race(std::vector<Candidate*>& pending, const AutotuneRequest& request) {
  std::vector<PreparedBenchmark> prepared;
  std::vector<Candidate*> racers;
  std::vector<measure::TimeOnce> samplers;
  for (Candidate* c : pending) {
    if (out_of_time(request.config)) {
      settle(*c, kBudgetSpentMessage);
      continue;
    }
    log::info("autotune: warming up '{}' (engine id {}, plan {}) for the race", c->plan->name(), c->result.engine_id,
              c->plan_index);
    PreparedBenchmark p = prepare_benchmark(*c->plan, request);
    if (!p.failure.empty()) {
      BenchmarkOutcome failed;
      failed.failure = std::move(p.failure);
      record(*c, failed, request.config);
      continue;
    }
    racers.push_back(c);
    prepared.push_back(std::move(p));
  }
  // Every sample follows another candidate's, whose pool may still spin:
  // each waits for the machine to settle (the wait is not timed). Then one
  // untimed batch warms the candidate again (its code, data and branch
  // history were the other candidate's): a sample timed cold measured a
  // microsecond kernel several times slower than its steady state, and
  // ranked candidates by how fast they recover instead.
  std::vector<SettleRecord> settling(racers.size());
  std::vector<std::int64_t> rewarmed(racers.size(), 0);
  for (std::size_t i = 0; i < racers.size(); ++i) {
    settling[i] = prepared[i].settling;
    samplers.push_back([time_once = prepared[i].sampler->time_once(), sampler = &*prepared[i].sampler,
                        settler = request.settler, record = &settling[i], rewarm = &rewarmed[i]](int iteration) {
      if (settler) record->add(settler->settle());
      Result<double> warm = time_once(iteration);
      if (!warm.ok()) {
        return Result<double>(Error(warm.error().code(), "the untimed run before the sample: " + warm.error().message()));
      }
      *rewarm += sampler->batch_size();
      return time_once(iteration);
    });
  }
  const measure::ComparisonConfig comparison = to_comparison_config(request.config);
  const measure::RaceOutcome outcome = measure::run_race(to_measure_config(request.config), comparison, samplers);
  log::info("autotune: race of {} candidates ended after {} rounds ({}), {} timed samples", racers.size(),
            outcome.rounds, measure::to_string(outcome.end), outcome.samples_taken);
  for (std::size_t i = 0; i < racers.size(); ++i) {
    const measure::RaceEntry& entry = outcome.entries[i];
    BenchmarkOutcome b;
    b.measured = entry.measured;
    record_batching(*prepared[i].sampler, b);
    b.rewarm_executions = rewarmed[i];
    b.settling = settling[i];
    if (entry.measured.failed) b.failure = "failed benchmark: " + entry.measured.message;
    racers[i]->result.eliminated_after_round = entry.eliminated_after_round;
    if (entry.eliminated_after_round >= 0) {
      // The record of why it left: the comparison with that round's leader.
      racers[i]->result.ratio_to_fastest = entry.against_leader.ratio;
      racers[i]->result.ratio_low = entry.against_leader.ratio_low;
      racers[i]->result.ratio_high = entry.against_leader.ratio_high;
      racers[i]->result.verdict_against_fastest = std::string(measure::to_string(entry.against_leader.verdict));
      log::info("autotune: '{}' left the race after round {}: {}", racers[i]->plan->name(),
                entry.eliminated_after_round, measure::describe(entry.against_leader, comparison));
    }
    const bool undecided =
        outcome.end == measure::RaceEnd::ROUND_LIMIT && entry.eliminated_after_round < 0 && !entry.measured.failed;
    record(*racers[i], b, request.config, undecided);
  }
}

void benchmark_all(std::vector<Candidate>& candidates, const AutotuneRequest& request) {
  std::vector<Candidate*> pending;
  for (auto& c : candidates) {
    if (!c.settled) pending.push_back(&c);
  }
  if (request.config.strategy == AutotuneStrategy::RACE && pending.size() > 1) {
    race(pending, request);
  } else {
    benchmark_one_by_one(pending, request);
  }
}

// The result check: a candidate whose outputs disagree with the reference
// engine's fails before it is timed.
void check_all_results(std::vector<Candidate>& candidates, Graph::Impl& g, const AutotuneRequest& request) {
  ResultChecker checker(g, request);
  if (!checker.unavailable().empty()) log::info("autotune: results are not checked: {}", checker.unavailable());
  for (auto& c : candidates) {
    if (c.settled) continue;
    const std::string wrong = checker.check(*c.plan, c.result);
    if (wrong.empty()) continue;
    log::warn("autotune: '{}' (engine id {}) failed: {}", c.plan->name(), c.result.engine_id, wrong);
    settle(c, wrong);
  }
}

// The INVALID_VALUE summary when the user's criteria excluded every
// candidate; nullopt when one remains or another disposition applied. It
// names only the categories that are not zero.
std::optional<std::string> everything_excluded(const std::vector<Candidate>& candidates) {
  std::size_t deselected = 0, filtered = 0, workspace = 0;
  for (const auto& c : candidates) {
    switch (c.exclusion) {
      case Exclusion::NONE: return std::nullopt;
      case Exclusion::DESELECTED: ++deselected; break;
      case Exclusion::FILTERED: ++filtered; break;
      case Exclusion::WORKSPACE_DESELECTED: ++workspace; break;
    }
  }
  std::vector<std::string> parts;
  if (deselected > 0) parts.push_back(fmt::format("{} barred by deselect_*", deselected));
  if (filtered > 0) parts.push_back(fmt::format("{} excluded by engineIdFilter", filtered));
  if (workspace > 0) {
    parts.push_back(fmt::format("{} barred by deselect_workspace_greater_than after compilation", workspace));
  }
  return fmt::format("autotune: no candidates remain after filtering ({})", fmt::join(parts, ", "));
}

}  // namespace

Error run_autotune(Graph::Impl& g, const AutotuneRequest& request, std::vector<AutotuneResult>* results) {
  const AutotuneConfig& config = request.config;
  const bool spec_path = !g.specs.empty();
  std::vector<Candidate> candidates = spec_path ? spec_candidates(g, config) : plan_candidates(g, config);
  std::vector<AutotuneResult> ranked;
  log::info("autotune: session start: {} candidates ({} path), mode {}, strategy {}, workspace limit {}",
            candidates.size(), spec_path ? "plan-spec" : "compiled-plan", to_string(config.mode),
            measure::to_string(config.strategy),
            request.workspace_limit ? fmt::format("{} bytes", *request.workspace_limit) : std::string("none"));

  // Exclusions decided before anything runs.
  for (auto& c : candidates) {
    const ExecutionPlan& plan = *c.plan;
    std::optional<std::string> barred_reason =
        spec_path ? g.deselection.engine_reason(plan.engine_id, plan.engine_name)
                  : (plan.barred.empty() ? std::nullopt : std::optional<std::string>(plan.barred));
    if (barred_reason) {
      settle(c, *barred_reason);
      c.exclusion = Exclusion::DESELECTED;
    } else if (filtered_out(config, plan.engine_id)) {
      settle(c, fmt::format("excluded by engineIdFilter: engine id {} is not in the filter", plan.engine_id));
      c.exclusion = Exclusion::FILTERED;
    } else if (!spec_path && !plan.compiled()) {
      settle(c, plan.failure.empty() ? std::string("not built: build_plans() did not compile this plan") : plan.failure);
    }
    if (c.settled) log::info("autotune: '{}' not benchmarked: {}", plan.name(), c.result.error_message);
  }
  if (auto summary = everything_excluded(candidates)) {
    publish(candidates, config, results, ranked);
    return {ErrorCode::INVALID_VALUE, *summary};
  }

  if (spec_path && config.mode == TuneMode::EXHAUSTIVE) {
    std::string abort_message;
    prime_all(candidates, g, request, abort_message);
    if (!abort_message.empty()) {
      publish(candidates, config, results, ranked);
      return {ErrorCode::EXECUTION_FAILED, abort_message};
    }
  }
  if (spec_path) compile_all(candidates, g);
  check_workspaces(candidates, g, request, spec_path);
  // The workspace threshold is known only once plans are compiled, so it can
  // leave nothing to benchmark at this point too.
  if (auto summary = everything_excluded(candidates)) {
    publish(candidates, config, results, ranked);
    return {ErrorCode::INVALID_VALUE, *summary};
  }
  if (config.check_results) check_all_results(candidates, g, request);
  const std::string load = config.check_machine_load ? machine_load_reason() : std::string();
  if (!load.empty()) log::warn("autotune: {}: the times may not hold", load);
  MachineSettler settler(config.settle_timeout_ms);
  AutotuneRequest settled_request = request;
  settled_request.settler = &settler;
  benchmark_all(candidates, settled_request);
  const bool budget_ran_out = std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) {
    return c.settled && c.result.error_message == kBudgetSpentMessage;
  });
  if (budget_ran_out) {
    log::warn("autotune: the time budget ran out before every candidate was measured");
    for (auto& c : candidates) c.result.budget_ran_out = true;
  }
  if (!load.empty()) {
    for (auto& c : candidates) {
      if (!c.result.succeeded) continue;
      c.result.unreliable_reason += (c.result.unreliable_reason.empty() ? "" : "; ") + load;
    }
  }

  publish(candidates, config, results, ranked);
  const auto succeeded = std::count_if(ranked.begin(), ranked.end(), [](const auto& r) { return r.succeeded; });
  log::info("autotune: ranking: {} succeeded, {} failed", succeeded, ranked.size() - static_cast<std::size_t>(succeeded));
  if (succeeded == 0) {
    return {ErrorCode::EXECUTION_FAILED, fmt::format("autotune: every candidate failed ({} candidates; first: {})",
                                                     ranked.size(),
                                                     ranked.empty() ? "" : ranked.front().error_message)};
  }

  const AutotuneResult& winner = ranked.front();
  for (auto& c : candidates) {
    if (c.settled || !c.result.succeeded || c.plan_index != winner.compiled_plan_index) continue;
    if (spec_path) {
      g.tuned_plan = std::move(c.owned);
    } else {
      g.tuned_plan.reset();
      g.active_plan = static_cast<std::size_t>(c.plan_index);
    }
    break;
  }
  const auto tied = std::count_if(ranked.begin(), ranked.end(), [](const auto& r) { return r.tied_with_fastest; });
  if (tied > 1) {
    log::info("autotune: {} candidates tie with the fastest within {:g}%: the winner is the first by engine id, then "
              "knobs",
              tied, config.tie_band * 100.0);
  }
  log::info("autotune: winner '{}' (engine id {}, {}) at {:.6f} ms", winner.engine_name, winner.engine_id,
            describe_knob_settings(winner.knob_settings), winner.min_time_ms);
  return Error::ok();
}

}  // namespace tunekit::graph::detail
