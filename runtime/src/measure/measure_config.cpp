// Strategy names and validation of MeasureConfig.
#include "tunekit/measure/measure_config.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

namespace tunekit::measure {
namespace {

Error invalid(std::string message) { return {ErrorCode::INVALID_VALUE, std::move(message)}; }

}  // namespace

std::string_view to_string(Strategy strategy) noexcept {
  switch (strategy) {
    case Strategy::FIXED_AVERAGE: return "fixed_average";
    case Strategy::RUN_UNTIL_STABLE: return "run_until_stable";
    case Strategy::RACE: return "race";
  }
  return "unknown";
}

std::optional<Strategy> parse_strategy(std::string_view name) noexcept {
  for (Strategy strategy : {Strategy::FIXED_AVERAGE, Strategy::RUN_UNTIL_STABLE, Strategy::RACE}) {
    if (to_string(strategy) == name) return strategy;
  }
  return std::nullopt;
}

Error validate(const MeasureConfig& config) {
  if (config.warmup_iterations < 0) {
    return invalid(fmt::format("warmup_iterations must be at least 0, got {}", config.warmup_iterations));
  }
  switch (config.strategy) {
    case Strategy::FIXED_AVERAGE:
      if (config.timed_iterations < 1) {
        return invalid(fmt::format("timed_iterations must be at least 1 for fixed_average, got {}",
                                   config.timed_iterations));
      }
      return Error::ok();
    case Strategy::RUN_UNTIL_STABLE:
      // A window of one run has no variation to measure.
      if (config.window_size < 2) {
        return invalid(fmt::format("window_size must be at least 2 for run_until_stable, got {}",
                                   config.window_size));
      }
      if (config.max_iterations < config.window_size) {
        return invalid(fmt::format(
            "max_iterations must be at least window_size ({}) for run_until_stable, got {}",
            config.window_size, config.max_iterations));
      }
      // Written so that NaN fails the test too.
      if (!(config.stability_threshold > 0.0 && config.stability_threshold < 1.0)) {
        return invalid(fmt::format(
            "stability_threshold must be strictly between 0 and 1 for run_until_stable, got {}",
            config.stability_threshold));
      }
      return Error::ok();
    case Strategy::RACE:
      // A median of one sample has no interval to compare.
      if (config.race_min_samples < 2) {
        return invalid(fmt::format("race_min_samples must be at least 2 for race, got {}", config.race_min_samples));
      }
      if (config.max_iterations < config.race_min_samples) {
        return invalid(fmt::format("max_iterations must be at least race_min_samples ({}) for race, got {}",
                                   config.race_min_samples, config.max_iterations));
      }
      return Error::ok();
  }
  return invalid(fmt::format("strategy {} is not a known strategy", static_cast<int>(config.strategy)));
}

}  // namespace tunekit::measure
