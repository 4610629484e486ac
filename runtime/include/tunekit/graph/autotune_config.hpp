// What autotune() is asked to do and what it reports: the mode, the timing
// strategy and its counts, the engine filter, the ranking function and the
// priming-failure policy; one AutotuneResult per candidate; the ranking rules.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/knob.hpp"
#include "tunekit/measure/comparison.hpp"
#include "tunekit/measure/measure_config.hpp"

namespace tunekit::graph {

enum class TuneMode {
  STANDARD,    // time the plans as they are
  EXHAUSTIVE,  // prime engine caches with global.benchmarking=1 plans first (plan-spec path)
};
std::string_view to_string(TuneMode mode) noexcept;  // "standard", "exhaustive"
std::optional<TuneMode> parse_tune_mode(std::string_view name) noexcept;

using AutotuneStrategy = measure::Strategy;  // FIXED_AVERAGE, RUN_UNTIL_STABLE, RACE

enum class PrimingFailurePolicy {
  ABORT_ON_PRIMING_FAILURE,  // autotune() stops and returns the priming error
  BENCHMARK_UNPRIMED,        // the engine is timed without priming; the reason is recorded
};

struct AutotuneResult;
// Reorders the succeeded results in place; must not add, remove or change entries.
using AutotuneRankingFn = std::function<void(std::vector<AutotuneResult>&)>;

struct AutotuneConfig {
  TuneMode mode = TuneMode::STANDARD;
  AutotuneStrategy strategy = AutotuneStrategy::RUN_UNTIL_STABLE;
  int warmup_iterations = 1;
  int timed_iterations = 10;  // FIXED_AVERAGE
  int max_iterations = 100;   // RUN_UNTIL_STABLE: window_size >= 2, max_iterations >= window_size,
  int window_size = 3;        // 0 < stability_threshold < 1
  double stability_threshold = 0.05;
  int race_min_samples = 5;  // RACE: samples each candidate has before the first elimination; <= max_iterations
  // The one comparison (measure/comparison.hpp): candidates whose medians are
  // within tie_band of the fastest's, and not shown slower at `confidence`,
  // tie with it and are ordered by engine id, then knobs (see
  // rank_autotune_results). 0 turns ties off: the order is by min_time_ms only.
  double tie_band = 0.02;
  double confidence = 0.95;
  // A succeeded candidate whose samples' dispersion (1.4826 x their median
  // absolute deviation over their median: the standard deviation for
  // normal noise, deaf to a lone outlier) exceeds this is reported
  // unreliable (AutotuneResult::unreliable_reason); > 0.
  double dispersion_limit = 0.10;
  // Whether a load average above the logical CPUs at the start makes every
  // measurement unreliable (off for tests whose machine load is not theirs).
  bool check_machine_load = true;
  // Before a candidate is warmed up, and before each of its samples in a
  // race, autotune waits up to this long for every other thread of the
  // process to sleep (measure/settle.hpp), so that the pools of the library
  // timed before it do not spin on the cores it needs. A candidate timed
  // while other threads still ran is reported unreliable; after one such
  // timeout the run stops waiting (only looks). 0: never wait, only look.
  double settle_timeout_ms = 250.0;
  // Before a candidate is timed, its results on the variant pack's inputs
  // are compared with those of a reference engine (EngineDescriptor::
  // reference: the first registered one that applies, or the engine
  // reference_engine_id), element by element (core::compare_elements on the
  // AT_LEAST_ONE scale). A candidate that disagrees beyond the tolerance
  // fails with "wrong result" and its largest error, so a fast but wrong
  // engine never wins. Graphs no reference engine runs, and devices whose
  // memory the host cannot read, are not checked (AutotuneResult::
  // result_check says so). The inputs are the caller's: the tune driver's
  // are random; the outputs are overwritten, as the timed runs do anyway.
  bool check_results = true;
  double result_tolerance = 0.0;          // 0: core::engine_tolerance of each output's data type
  std::int64_t reference_engine_id = -1;  // -1: the first registered reference engine that applies
  // A time budget, as the moment it runs out: a candidate not yet timed then
  // (checked before each one, and before each warm-up of a race) is not
  // measured and fails with "not measured: the time budget ran out"; every
  // result of that run says budget_ran_out, and an override written from it
  // records "complete": false. Unset: no budget.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::vector<std::int64_t> engine_id_filter;  // empty: every candidate; unmatched ids are ignored
  AutotuneRankingFn ranking_fn = nullptr;      // null: by min_time_ms
  PrimingFailurePolicy priming_failure_policy = PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE;
};

// The error_message of a candidate the time budget left unmeasured.
inline constexpr const char* kBudgetSpentMessage = "not measured: the time budget ran out";

struct AutotuneStorageConfig {
  std::filesystem::path file_path;  // empty: results are not written
  bool delete_all_existing_content = false;
};

struct AutotuneResult {
  std::int64_t engine_id = -1;
  std::string engine_name;
  std::vector<KnobSetting> knob_settings;  // knobs explicitly set on the candidate

  double min_time_ms = 0.0;
  double avg_time_ms = 0.0;
  double stddev_ms = 0.0;  // population (divides by N)
  double median_time_ms = 0.0;
  std::vector<double> samples_ms;  // the accepted timed samples, per execution, in the order taken

  // This candidate against the fastest succeeded one (the smallest median
  // time), by the one comparison: the ratio of medians (this over the
  // fastest's) with its interval, and the verdict ("faster", "slower", "tie",
  // "undecided"). NaN and empty for the fastest itself and failed candidates.
  // For a candidate the race dropped: the comparison that dropped it, with
  // the leader of that round.
  double ratio_to_fastest = 0.0;
  double ratio_low = 0.0;
  double ratio_high = 0.0;
  std::string verdict_against_fastest;
  // In the fastest's tie group of two or more (see rank_autotune_results), so
  // ordered by the deterministic rule rather than by its time; the fastest
  // itself included.
  bool tied_with_fastest = false;
  // RACE: the 0-based round after which the race dropped it as slower; -1 otherwise.
  int eliminated_after_round = -1;
  // Time spent waiting for the other threads to sleep before this
  // candidate's warm-up and samples (see AutotuneConfig::settle_timeout_ms),
  // never part of its times.
  double settle_wait_ms = 0.0;
  // What the result check found (see AutotuneConfig::check_results):
  // "agrees with cpu_matmul_naive (largest error 2.4e-07)", or "not
  // checked: " and why; for a candidate it failed, error_message says
  // "wrong result against ..."; empty when the check was off or the
  // candidate failed before it.
  std::string result_check;
  // The largest error over every output element (on the tolerance's
  // scale); -1 when the candidate was not checked.
  double result_error = -1.0;
  // Why this succeeded candidate's time should not be trusted, empty when
  // nothing was seen: it did not stabilise or its race was not decided
  // within the cap, its samples' dispersion exceeds dispersion_limit, the
  // timer was too coarse even at the largest batch, or the machine was
  // loaded (load average above its logical CPUs) when autotune() started,
  // or other threads of the process still ran when it was timed.
  std::string unreliable_reason;
  // The time budget (AutotuneConfig::deadline) ran out before every
  // candidate was measured: the ranking is of those measured only.
  bool budget_ran_out = false;
  int iterations_run = 0;
  bool converged = false;
  // Executions per timed sample: 1 when one execution is long enough for the
  // timer, more when executions had to be batched; 0 when nothing was timed.
  std::int64_t batch_size = 0;
  // Executions run only to choose batch_size, beyond the warm-up and the timed
  // ones: 0 when the warm-up executions decided it (no batching needed).
  std::int64_t calibration_executions = 0;
  // RACE: executions run untimed right before each sample (one batch each),
  // so that a sample times the candidate warm, as the other strategies do,
  // not cold after the candidate the round ran before it; 0 otherwise.
  std::int64_t rewarm_executions = 0;

  int rank = -1;  // 0 = fastest; -1 for failed candidates
  bool succeeded = false;
  std::string error_message;
  // Whether a plan was compiled for this candidate, so that workspace_size is
  // its compiled workspace. autotune() reports workspace_size -1 for a
  // candidate excluded or failed before compilation, as hipDNN does; test
  // this flag rather than the sign.
  bool compiled = false;
  std::int64_t workspace_size = 0;            // bytes, compiled
  // Wall time of the candidate's compile and finalize (engine setup such as
  // primitive creation), never part of the timed executions; 0 when not compiled.
  double compile_time_ms = 0.0;
  std::int64_t estimated_workspace_size = 0;  // pre-compile estimate (plan-spec path)
  int compiled_plan_index = -1;
  TuneMode mode_used = TuneMode::STANDARD;
  bool supports_exhaustive = false;
  bool ran_exhaustive = false;
  std::string exhaustive_not_run_reason;
  AutotuneStrategy strategy_used = AutotuneStrategy::RUN_UNTIL_STABLE;
};

// INVALID_VALUE naming the first offending field (warmup_iterations,
// timed_iterations, window_size, max_iterations, stability_threshold,
// race_min_samples, tie_band, confidence, dispersion_limit, settle_timeout_ms,
// result_tolerance) or OK.
Error validate(const AutotuneConfig& config);

measure::MeasureConfig to_measure_config(const AutotuneConfig& config);
measure::ComparisonConfig to_comparison_config(const AutotuneConfig& config);

// Orders results: succeeded entries first, by min_time_ms (stable), or by
// ranking_fn when given, then failed entries in their original order. Ranks
// are 0.. for succeeded and -1 for failed. ranking_fn receives only the
// succeeded entries; if it throws, or adds, removes or alters an entry, the
// order by min_time_ms is used instead and fallback_reason says why.
//
// With `comparison`, every succeeded entry is compared with the fastest, the
// one with the smallest median of samples_ms (min_time_ms for one without
// samples), its figures filled in. Without a ranking_fn, when comparison's
// tie_band is above 0, the tie rule then decides the order: the fastest's
// tie group is the fastest and every entry whose median is at most
// (1 + tie_band) times the fastest's and that the comparison does not call
// slower; the group comes first, ordered by engine id, then by its knob
// settings' text (sorted by knob id), so the winner of a tie is the same on
// every run; the others follow by min_time_ms. A tie_band of 0 keeps the
// specification's order by min_time_ms. Entries the race dropped
// (eliminated_after_round >= 0) keep their comparison, never tie and are
// the fastest only when no other entry succeeded.
void rank_autotune_results(std::vector<AutotuneResult>& results, const AutotuneRankingFn& ranking_fn,
                           std::string* fallback_reason = nullptr,
                           const measure::ComparisonConfig* comparison = nullptr);

}  // namespace tunekit::graph
