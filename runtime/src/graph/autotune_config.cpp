// AutotuneConfig validation, its measure configuration, and result ranking.
#include "tunekit/graph/autotune_config.hpp"

#include "tunekit/measure/statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>

namespace tunekit::graph {

std::string_view to_string(TuneMode mode) noexcept {
  return mode == TuneMode::EXHAUSTIVE ? "exhaustive" : "standard";
}

std::optional<TuneMode> parse_tune_mode(std::string_view name) noexcept {
  if (name == "standard") return TuneMode::STANDARD;
  if (name == "exhaustive") return TuneMode::EXHAUSTIVE;
  return std::nullopt;
}

measure::MeasureConfig to_measure_config(const AutotuneConfig& config) {
  measure::MeasureConfig measure;
  measure.strategy = config.strategy;
  measure.warmup_iterations = config.warmup_iterations;
  measure.timed_iterations = config.timed_iterations;
  measure.max_iterations = config.max_iterations;
  measure.window_size = config.window_size;
  measure.stability_threshold = config.stability_threshold;
  measure.race_min_samples = config.race_min_samples;
  return measure;
}

measure::ComparisonConfig to_comparison_config(const AutotuneConfig& config) {
  measure::ComparisonConfig comparison;
  comparison.tie_band = config.tie_band;
  comparison.confidence = config.confidence;
  return comparison;
}

Error validate(const AutotuneConfig& config) {
  if (config.mode != TuneMode::STANDARD && config.mode != TuneMode::EXHAUSTIVE) {
    return {ErrorCode::INVALID_VALUE, "mode is not a known TuneMode"};
  }
  if (config.priming_failure_policy != PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE &&
      config.priming_failure_policy != PrimingFailurePolicy::BENCHMARK_UNPRIMED) {
    return {ErrorCode::INVALID_VALUE, "priming_failure_policy is not a known PrimingFailurePolicy"};
  }
  if (Error measure = measure::validate(to_measure_config(config)); measure.is_bad()) return measure;
  if (!(config.dispersion_limit > 0.0)) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("dispersion_limit must be above 0, got {}", config.dispersion_limit)};
  }
  if (!(config.settle_timeout_ms >= 0.0) || !std::isfinite(config.settle_timeout_ms)) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("settle_timeout_ms must be at least 0 and finite, got {}", config.settle_timeout_ms)};
  }
  if (!(config.result_tolerance >= 0.0) || !std::isfinite(config.result_tolerance)) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("result_tolerance must be at least 0 and finite, got {}", config.result_tolerance)};
  }
  return measure::validate(to_comparison_config(config));
}

namespace {

bool by_min_time(const AutotuneResult& a, const AutotuneResult& b) { return a.min_time_ms < b.min_time_ms; }

// The fields that identify an entry, for checking that a ranking function
// only reordered.
bool same_entry(const AutotuneResult& a, const AutotuneResult& b) {
  return a.engine_id == b.engine_id && a.engine_name == b.engine_name && a.knob_settings == b.knob_settings &&
         a.min_time_ms == b.min_time_ms && a.avg_time_ms == b.avg_time_ms && a.stddev_ms == b.stddev_ms &&
         a.iterations_run == b.iterations_run && a.batch_size == b.batch_size &&
         a.calibration_executions == b.calibration_executions && a.rewarm_executions == b.rewarm_executions &&
         a.succeeded == b.succeeded &&
         a.compiled == b.compiled && a.workspace_size == b.workspace_size && a.compile_time_ms == b.compile_time_ms &&
         a.compiled_plan_index == b.compiled_plan_index && a.error_message == b.error_message;
}

// Whether after is a permutation of before (entries unchanged).
bool is_reordering(const std::vector<AutotuneResult>& before, const std::vector<AutotuneResult>& after) {
  if (before.size() != after.size()) return false;
  std::vector<bool> used(before.size(), false);
  for (const auto& entry : after) {
    bool found = false;
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (!used[i] && same_entry(before[i], entry)) {
        used[i] = true;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The deterministic order inside a tie group: engine id, then the knob
// settings' text with the settings sorted by knob id.
std::string knob_key(const AutotuneResult& r) {
  std::vector<KnobSetting> sorted = r.knob_settings;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.knob_id < b.knob_id; });
  return describe_knob_settings(sorted);
}
bool by_tie_rule(const AutotuneResult& a, const AutotuneResult& b) {
  if (a.engine_id != b.engine_id) return a.engine_id < b.engine_id;
  return knob_key(a) < knob_key(b);
}

// The median of the samples; min_time_ms for a result that has none (one
// built by hand), so that it can still be the fastest.
double typical_ms(const AutotuneResult& r) {
  return r.samples_ms.empty() ? r.min_time_ms : measure::median(r.samples_ms);
}

// Fills each entry's comparison with the fastest (the smallest median; the
// first in `by_time` order of equal ones) and returns which entries belong
// to its tie group. A candidate the race dropped keeps the comparison that
// dropped it and never ties; it is the fastest only when every racer that
// was not dropped failed.
std::vector<bool> compare_with_fastest(std::vector<AutotuneResult>& by_time,
                                       const measure::ComparisonConfig& comparison) {
  std::vector<bool> tied(by_time.size(), false);
  if (by_time.empty()) return tied;
  const bool any_kept = std::any_of(by_time.begin(), by_time.end(),
                                    [](const AutotuneResult& r) { return r.eliminated_after_round < 0; });
  auto may_lead = [&](const AutotuneResult& r) { return !any_kept || r.eliminated_after_round < 0; };
  std::optional<std::size_t> leader;
  for (std::size_t i = 0; i < by_time.size(); ++i) {
    if (may_lead(by_time[i]) && (!leader || typical_ms(by_time[i]) < typical_ms(by_time[*leader]))) leader = i;
  }
  const std::size_t fastest = *leader;
  tied[fastest] = true;
  for (std::size_t i = 0; i < by_time.size(); ++i) {
    AutotuneResult& r = by_time[i];
    if (i == fastest) {
      r.ratio_to_fastest = r.ratio_low = r.ratio_high = kNaN;
      r.verdict_against_fastest.clear();
      continue;
    }
    if (r.eliminated_after_round >= 0 && any_kept) continue;
    const measure::Comparison c = measure::compare_times(r.samples_ms, by_time[fastest].samples_ms, comparison);
    r.ratio_to_fastest = c.ratio;
    r.ratio_low = c.ratio_low;
    r.ratio_high = c.ratio_high;
    r.verdict_against_fastest = std::string(measure::to_string(c.verdict));
    // NaN ratios (too few samples) compare false: never tied.
    tied[i] = c.verdict != measure::Verdict::SLOWER && c.ratio <= 1.0 + comparison.tie_band;
  }
  return tied;
}

// The tie group first in the tie rule's order, then the rest by time. A
// group of one is no tie.
void apply_tie_rule(std::vector<AutotuneResult>& by_time, const std::vector<bool>& tied) {
  const bool several = std::count(tied.begin(), tied.end(), true) > 1;
  std::vector<AutotuneResult> group, rest;
  for (std::size_t i = 0; i < by_time.size(); ++i) {
    by_time[i].tied_with_fastest = several && tied[i];
    (tied[i] ? group : rest).push_back(std::move(by_time[i]));
  }
  std::stable_sort(group.begin(), group.end(), by_tie_rule);
  by_time = std::move(group);
  for (auto& r : rest) by_time.push_back(std::move(r));
}

}  // namespace

void rank_autotune_results(std::vector<AutotuneResult>& results, const AutotuneRankingFn& ranking_fn,
                           std::string* fallback_reason, const measure::ComparisonConfig* comparison) {
  std::vector<AutotuneResult> succeeded;
  std::vector<AutotuneResult> failed;
  for (auto& result : results) (result.succeeded ? succeeded : failed).push_back(std::move(result));

  std::stable_sort(succeeded.begin(), succeeded.end(), by_min_time);
  for (auto& result : failed) {
    result.tied_with_fastest = false;
    result.ratio_to_fastest = result.ratio_low = result.ratio_high = kNaN;
    result.verdict_against_fastest.clear();
  }
  if (comparison) {
    const std::vector<bool> tied = compare_with_fastest(succeeded, *comparison);
    if (!ranking_fn && comparison->tie_band > 0.0) {
      apply_tie_rule(succeeded, tied);
    } else {
      for (auto& result : succeeded) result.tied_with_fastest = false;
    }
  }
  if (ranking_fn) {
    std::vector<AutotuneResult> custom = succeeded;
    std::string reason;
    try {
      ranking_fn(custom);
      if (!is_reordering(succeeded, custom)) reason = "the ranking function added, removed or changed entries";
    } catch (const std::exception& error) {
      reason = fmt::format("the ranking function threw: {}", error.what());
    } catch (...) {
      reason = "the ranking function threw a non-standard exception";
    }
    if (reason.empty()) {
      succeeded = std::move(custom);
    } else if (fallback_reason) {
      *fallback_reason = reason;
    }
  }

  results.clear();
  int rank = 0;
  for (auto& result : succeeded) {
    result.rank = rank++;
    results.push_back(std::move(result));
  }
  for (auto& result : failed) {
    result.rank = -1;
    results.push_back(std::move(result));
  }
}

}  // namespace tunekit::graph
