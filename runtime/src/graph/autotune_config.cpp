// AutotuneConfig validation, its measure configuration, and result ranking.
#include "tunekit/graph/autotune_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

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
  return measure;
}

Error validate(const AutotuneConfig& config) {
  if (config.mode != TuneMode::STANDARD && config.mode != TuneMode::EXHAUSTIVE) {
    return {ErrorCode::INVALID_VALUE, "mode is not a known TuneMode"};
  }
  if (config.priming_failure_policy != PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE &&
      config.priming_failure_policy != PrimingFailurePolicy::BENCHMARK_UNPRIMED) {
    return {ErrorCode::INVALID_VALUE, "priming_failure_policy is not a known PrimingFailurePolicy"};
  }
  return measure::validate(to_measure_config(config));
}

namespace {

bool by_min_time(const AutotuneResult& a, const AutotuneResult& b) { return a.min_time_ms < b.min_time_ms; }

// The fields that identify an entry, for checking that a ranking function
// only reordered.
bool same_entry(const AutotuneResult& a, const AutotuneResult& b) {
  return a.engine_id == b.engine_id && a.engine_name == b.engine_name && a.knob_settings == b.knob_settings &&
         a.min_time_ms == b.min_time_ms && a.avg_time_ms == b.avg_time_ms && a.stddev_ms == b.stddev_ms &&
         a.iterations_run == b.iterations_run && a.batch_size == b.batch_size &&
         a.calibration_executions == b.calibration_executions && a.succeeded == b.succeeded &&
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

}  // namespace

void rank_autotune_results(std::vector<AutotuneResult>& results, const AutotuneRankingFn& ranking_fn,
                           std::string* fallback_reason) {
  std::vector<AutotuneResult> succeeded;
  std::vector<AutotuneResult> failed;
  for (auto& result : results) (result.succeeded ? succeeded : failed).push_back(std::move(result));

  std::stable_sort(succeeded.begin(), succeeded.end(), by_min_time);
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
