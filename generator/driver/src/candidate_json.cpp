#include "candidate_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "tunekit/internal/knob_json.hpp"

namespace tunekit::cli {
namespace {

using nlohmann::json;

// NaN figures (too few samples) are null.
json number(double x) { return std::isnan(x) ? json() : json(x); }

// null for the fastest and failed candidates.
json against_fastest_json(const graph::AutotuneResult& r) {
  if (r.verdict_against_fastest.empty()) return nullptr;
  return {{"ratio", number(r.ratio_to_fastest)},
          {"ratio_low", number(r.ratio_low)},
          {"ratio_high", number(r.ratio_high)},
          {"verdict", r.verdict_against_fastest}};
}

// Reads field `name` of `object` into `out`; null reads as NaN for a double.
template <typename T>
Error read(const json& object, const char* name, T& out) {
  const auto it = object.find(name);
  if (it == object.end()) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field '{}' is missing", name)};
  if constexpr (std::is_same_v<T, double>) {
    if (it->is_null()) {
      out = std::numeric_limits<double>::quiet_NaN();
      return Error::ok();
    }
    if (!it->is_number()) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field '{}' is not a number", name)};
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field '{}' is not a boolean", name)};
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field '{}' is not a string", name)};
  } else {
    if (!it->is_number_integer()) {
      return {ErrorCode::INVALID_VALUE, fmt::format("candidate field '{}' is not an integer", name)};
    }
  }
  out = it->get<T>();
  return Error::ok();
}

}  // namespace

json candidate_json(const graph::AutotuneResult& r) {
  return {{"engine_id", r.engine_id},
          {"engine_name", r.engine_name},
          {"knobs", internal::knob_settings_to_json(r.knob_settings)},
          {"min_time_ms", r.min_time_ms},
          {"avg_time_ms", r.avg_time_ms},
          {"stddev_ms", r.stddev_ms},
          {"iterations_run", r.iterations_run},
          {"converged", r.converged},
          {"batch_size", r.batch_size},
          {"workspace_size", r.workspace_size},
          {"compiled", r.compiled},
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
          {"mode", std::string(graph::to_string(r.mode_used))},
          {"strategy", std::string(measure::to_string(r.strategy_used))},
          {"supports_exhaustive", r.supports_exhaustive},
          {"ran_exhaustive", r.ran_exhaustive},
          {"exhaustive_not_run_reason", r.exhaustive_not_run_reason},
          {"rank", r.rank},
          {"succeeded", r.succeeded},
          {"error_message", r.error_message}};
}

Error read_candidate_json(const json& j, graph::AutotuneResult& r) {
  if (!j.is_object()) return {ErrorCode::INVALID_VALUE, "a candidate is not a JSON object"};
  TUNEKIT_RETURN_IF_ERROR(read(j, "succeeded", r.succeeded));
  TUNEKIT_RETURN_IF_ERROR(read(j, "error_message", r.error_message));
  TUNEKIT_RETURN_IF_ERROR(read(j, "min_time_ms", r.min_time_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "avg_time_ms", r.avg_time_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "stddev_ms", r.stddev_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "median_time_ms", r.median_time_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "iterations_run", r.iterations_run));
  TUNEKIT_RETURN_IF_ERROR(read(j, "converged", r.converged));
  TUNEKIT_RETURN_IF_ERROR(read(j, "batch_size", r.batch_size));
  TUNEKIT_RETURN_IF_ERROR(read(j, "workspace_size", r.workspace_size));
  TUNEKIT_RETURN_IF_ERROR(read(j, "compiled", r.compiled));
  TUNEKIT_RETURN_IF_ERROR(read(j, "compile_time_ms", r.compile_time_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "unreliable_reason", r.unreliable_reason));
  TUNEKIT_RETURN_IF_ERROR(read(j, "settle_wait_ms", r.settle_wait_ms));
  TUNEKIT_RETURN_IF_ERROR(read(j, "result_check", r.result_check));
  TUNEKIT_RETURN_IF_ERROR(read(j, "result_error", r.result_error));
  TUNEKIT_RETURN_IF_ERROR(read(j, "supports_exhaustive", r.supports_exhaustive));
  TUNEKIT_RETURN_IF_ERROR(read(j, "ran_exhaustive", r.ran_exhaustive));
  TUNEKIT_RETURN_IF_ERROR(read(j, "exhaustive_not_run_reason", r.exhaustive_not_run_reason));
  std::string mode, strategy;
  TUNEKIT_RETURN_IF_ERROR(read(j, "mode", mode));
  TUNEKIT_RETURN_IF_ERROR(read(j, "strategy", strategy));
  const auto parsed_mode = graph::parse_tune_mode(mode);
  const auto parsed_strategy = measure::parse_strategy(strategy);
  if (!parsed_mode) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field 'mode' is '{}'", mode)};
  if (!parsed_strategy) return {ErrorCode::INVALID_VALUE, fmt::format("candidate field 'strategy' is '{}'", strategy)};
  r.mode_used = *parsed_mode;
  r.strategy_used = *parsed_strategy;
  const auto samples = j.find("samples_ms");
  if (samples == j.end() || !samples->is_array()) {
    return {ErrorCode::INVALID_VALUE, "candidate field 'samples_ms' is missing or not an array"};
  }
  r.samples_ms.clear();
  for (const json& s : *samples) {
    if (!s.is_number()) return {ErrorCode::INVALID_VALUE, "candidate field 'samples_ms' holds a non-number"};
    r.samples_ms.push_back(s.get<double>());
  }
  return Error::ok();
}

}  // namespace tunekit::cli
