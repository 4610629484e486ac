// Defaults, strategy names and each validation rule of MeasureConfig at its boundary.
#include "tunekit/measure/measure_config.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace tunekit::measure {
namespace {

MeasureConfig stable() { return MeasureConfig{}; }

MeasureConfig fixed() {
  MeasureConfig config;
  config.strategy = Strategy::FIXED_AVERAGE;
  return config;
}

void expect_invalid(const MeasureConfig& config, const std::string& message) {
  const Error error = validate(config);
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(error.message(), message);
}

TEST(MeasureConfig, DefaultsMatchTheAutotuneConfig) {
  const MeasureConfig config;
  EXPECT_EQ(config.strategy, Strategy::RUN_UNTIL_STABLE);
  EXPECT_EQ(config.warmup_iterations, 1);
  EXPECT_EQ(config.timed_iterations, 10);
  EXPECT_EQ(config.max_iterations, 100);
  EXPECT_EQ(config.window_size, 3);
  EXPECT_EQ(config.stability_threshold, 0.05);
  EXPECT_TRUE(validate(config).is_good());
  EXPECT_TRUE(validate(fixed()).is_good());
}

TEST(Strategy, NamesAreStableAndRoundTrip) {
  EXPECT_EQ(to_string(Strategy::FIXED_AVERAGE), "fixed_average");
  EXPECT_EQ(to_string(Strategy::RUN_UNTIL_STABLE), "run_until_stable");
  for (Strategy strategy : {Strategy::FIXED_AVERAGE, Strategy::RUN_UNTIL_STABLE}) {
    EXPECT_EQ(parse_strategy(to_string(strategy)), strategy);
  }
  EXPECT_FALSE(parse_strategy("FIXED_AVERAGE").has_value());
  EXPECT_FALSE(parse_strategy("").has_value());
}

TEST(MeasureConfig, WarmupZeroIsAcceptedAndNegativeRejected) {
  MeasureConfig config = stable();
  config.warmup_iterations = 0;
  EXPECT_TRUE(validate(config).is_good());
  config.warmup_iterations = -1;
  expect_invalid(config, "warmup_iterations must be at least 0, got -1");
  MeasureConfig fixed_config = fixed();
  fixed_config.warmup_iterations = -1;
  expect_invalid(fixed_config, "warmup_iterations must be at least 0, got -1");
}

TEST(MeasureConfig, FixedAverageNeedsOneTimedIteration) {
  MeasureConfig config = fixed();
  config.timed_iterations = 1;
  EXPECT_TRUE(validate(config).is_good());
  config.timed_iterations = 0;
  expect_invalid(config, "timed_iterations must be at least 1 for fixed_average, got 0");
}

TEST(MeasureConfig, FixedAverageIgnoresTheRunUntilStableFields) {
  MeasureConfig config = fixed();
  config.window_size = 1;
  config.max_iterations = 0;
  config.stability_threshold = 0.0;
  EXPECT_TRUE(validate(config).is_good());
}

TEST(MeasureConfig, RunUntilStableIgnoresTimedIterations) {
  MeasureConfig config = stable();
  config.timed_iterations = 0;
  EXPECT_TRUE(validate(config).is_good());
}

TEST(MeasureConfig, WindowOfTwoIsAcceptedAndOneRejected) {
  MeasureConfig config = stable();
  config.window_size = 2;
  EXPECT_TRUE(validate(config).is_good());
  config.window_size = 1;
  expect_invalid(config, "window_size must be at least 2 for run_until_stable, got 1");
}

TEST(MeasureConfig, MaxIterationsEqualToWindowIsAcceptedAndOneLessRejected) {
  MeasureConfig config = stable();
  config.window_size = 4;
  config.max_iterations = 4;
  EXPECT_TRUE(validate(config).is_good());
  config.max_iterations = 3;
  expect_invalid(config, "max_iterations must be at least window_size (4) for run_until_stable, got 3");
}

TEST(MeasureConfig, ThresholdMustBeStrictlyBetweenZeroAndOne) {
  MeasureConfig config = stable();
  for (double accepted : {1e-9, 0.5, 0.999999}) {
    config.stability_threshold = accepted;
    EXPECT_TRUE(validate(config).is_good()) << accepted;
  }
  config.stability_threshold = 0.0;
  expect_invalid(config, "stability_threshold must be strictly between 0 and 1 for run_until_stable, got 0");
  config.stability_threshold = 1.0;
  expect_invalid(config, "stability_threshold must be strictly between 0 and 1 for run_until_stable, got 1");
  config.stability_threshold = -0.5;
  expect_invalid(config, "stability_threshold must be strictly between 0 and 1 for run_until_stable, got -0.5");
}

TEST(MeasureConfig, NaNThresholdIsRejected) {
  MeasureConfig config = stable();
  config.stability_threshold = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(config, "stability_threshold must be strictly between 0 and 1 for run_until_stable, got nan");
}

TEST(MeasureConfig, UnknownStrategyValueIsRejectedNotTrusted) {
  MeasureConfig config = stable();
  config.strategy = static_cast<Strategy>(7);
  expect_invalid(config, "strategy 7 is not a known strategy");
}

}  // namespace
}  // namespace tunekit::measure
