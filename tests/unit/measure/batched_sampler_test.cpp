// Batch calibration and batched sampling against a simulated clock whose
// time moves only when the action or the synchronisation says so.
#include "tunekit/measure/batched_sampler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/log.hpp"

namespace tunekit::measure {
namespace {

using ::testing::HasSubstr;

// Powers of two keep every simulated time exact, so batch sizes can be
// computed by hand and compared with ==.
const double kUnit = std::ldexp(1.0, -30);        // ~0.93 ns
const double kResolution = std::ldexp(1.0, -20);  // 1024 units; the target is 10240 units

BatchedSamplerOptions options_with(double resolution) {
  BatchedSamplerOptions options;
  options.clock_resolution_s = resolution;
  return options;
}

struct SimulatedDevice {
  double now = 0.0;
  double cost = 0.0;         // seconds each execution takes
  double tick = 0.0;         // clock granularity; 0 reads the exact time
  bool asynchronous = false; // executions only take time once synchronised
  double pending = 0.0;
  std::int64_t executions = 0;
  std::int64_t fail_at_execution = -1;  // 1-based count at which the action fails
  double first_execution_extra = 0.0;    // a cold first run: extra seconds once
  int syncs = 0;
  int clock_reads = 0;

  BatchedSampler::Clock clock() {
    return [this] {
      ++clock_reads;
      return tick > 0.0 ? std::floor(now / tick) * tick : now;
    };
  }
  BatchedSampler::Action action() {
    return [this]() -> Error {
      if (++executions == fail_at_execution) return {ErrorCode::EXECUTION_FAILED, "device lost"};
      (asynchronous ? pending : now) += cost + (executions == 1 ? first_execution_extra : 0.0);
      return Error::ok();
    };
  }
  BatchedSampler::Synchronize synchronize() {
    return [this] {
      ++syncs;
      now += pending;
      pending = 0.0;
      return Error::ok();
    };
  }
  BatchedSampler sampler(BatchedSamplerOptions options = options_with(kResolution)) {
    return BatchedSampler(clock(), action(), synchronize(), options);
  }
};

TEST(BatchedSampler, GrowsTheBatchUntilItSpansTenClockResolutions) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.calibrate().is_good());
  // Batches 1 (16 units), 10 (160), 100 (1600; estimate 1.25 * 10240 / 1600 = x8), 800 (12800 >= 10240),
  // and 800 again to confirm.
  ASSERT_TRUE(sampler.calibration().has_value());
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(sampler.calibration()->rounds, 5);
  EXPECT_EQ(sampler.calibration()->batch_seconds, 12800 * kUnit);
  EXPECT_GE(sampler.calibration()->batch_seconds, 10 * kResolution);
  EXPECT_FALSE(sampler.calibration()->reached_cap);
  EXPECT_EQ(device.executions, 1 + 10 + 100 + 800 + 800);
  EXPECT_EQ(device.syncs, 5);
}

TEST(BatchedSampler, SamplesAreTheBatchTimeDividedPerExecutionInMilliseconds) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  BatchedSampler sampler = device.sampler();
  Result<double> first = sampler.sample();  // calibrates, then times one batch of 800
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(*first, 16 * kUnit * 1000.0);
  EXPECT_EQ(device.executions, 1711 + 800);
  Result<double> second = sampler.sample();  // no second calibration
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, 16 * kUnit * 1000.0);
  EXPECT_EQ(device.executions, 1711 + 800 + 800);
}

TEST(BatchedSampler, DoublesWhileTheClockDoesNotTick) {
  SimulatedDevice device;
  device.tick = kResolution;
  device.cost = kResolution / 8;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.calibrate().is_good());
  // Batches 1, 2 and 4 end inside the first tick (elapsed 0: x2); 8 crosses one
  // tick (estimate x12.5, capped at x10); 80 spans exactly ten ticks, twice.
  EXPECT_EQ(sampler.batch_size(), 80);
  EXPECT_EQ(sampler.calibration()->rounds, 6);
  EXPECT_EQ(sampler.calibration()->batch_seconds, 10 * kResolution);
  EXPECT_EQ(device.executions, 1 + 2 + 4 + 8 + 80 + 80);
}

TEST(BatchedSampler, OneSlowColdBatchDoesNotStopTheGrowth) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.first_execution_extra = 20480 * kUnit;  // the first batch alone looks long enough
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.calibrate().is_good());
  // Batch 1 (20496 units) is not confirmed by the next batch of 1 (16 units,
  // estimate x10), so growth goes on: 10, 100 (x8), 800, 800.
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(sampler.calibration()->rounds, 6);
  EXPECT_EQ(device.executions, 1 + 1 + 10 + 100 + 800 + 800);
}

TEST(BatchedSampler, ZeroTimeActionStopsAtTheDefaultCap) {
  SimulatedDevice device;  // cost 0: the clock never moves
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.calibrate().is_good());
  EXPECT_EQ(sampler.batch_size(), std::int64_t{1} << 20);
  EXPECT_TRUE(sampler.calibration()->reached_cap);
  EXPECT_EQ(sampler.calibration()->rounds, 21);
  EXPECT_EQ(device.executions, (std::int64_t{1} << 21) - 1);  // 1 + 2 + ... + 2^20
  Result<double> sample = sampler.sample();
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(*sample, 0.0);
}

TEST(BatchedSampler, GrowthIsClampedToAConfiguredCap) {
  SimulatedDevice device;
  BatchedSamplerOptions options = options_with(kResolution);
  options.max_batch_size = 5;
  BatchedSampler sampler = device.sampler(options);
  ASSERT_TRUE(sampler.calibrate().is_good());
  EXPECT_EQ(sampler.batch_size(), 5);  // 1, 2, 4, then 8 clamped to 5
  EXPECT_TRUE(sampler.calibration()->reached_cap);
  EXPECT_EQ(device.executions, 1 + 2 + 4 + 5);
}

TEST(BatchedSampler, ResolutionMultipleIsConfigurable) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  BatchedSamplerOptions options = options_with(kResolution);
  options.resolution_multiple = 1.0;  // target 1024 units
  BatchedSampler sampler = device.sampler(options);
  ASSERT_TRUE(sampler.calibrate().is_good());
  // Batches 1 (16), 10 (160; estimate 1.25 * 1024 / 160 = x8), 80 (1280 >= 1024) twice.
  EXPECT_EQ(sampler.batch_size(), 80);
  EXPECT_EQ(device.executions, 1 + 10 + 80 + 80);
}

TEST(BatchedSampler, SynchronizeRunsBeforeTheStopTimeIsRead) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.asynchronous = true;  // without the sync every batch would look free
  BatchedSampler sampler = device.sampler();
  Result<double> sample = sampler.sample();
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(*sample, 16 * kUnit * 1000.0);
  EXPECT_EQ(device.syncs, 5 + 1);  // one per calibration batch, one for the sample
}

TEST(BatchedSampler, ActionErrorDuringCalibrationStopsAtOnceWithItsMessage) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.fail_at_execution = 7;  // the 6th execution of the batch of 10
  BatchedSampler sampler = device.sampler();
  const Error error = sampler.calibrate();
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message(), "execution 5 of a batch of 10: device lost");
  EXPECT_EQ(device.executions, 7);
  EXPECT_EQ(device.syncs, 1);  // the failed batch is not synchronised or timed
  EXPECT_FALSE(sampler.calibration().has_value());
  EXPECT_EQ(sampler.batch_size(), 0);
}

TEST(BatchedSampler, ActionErrorStopsTheTimedLoop) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.fail_at_execution = 1711 + 800 + 4;  // 4th execution of the second timed batch
  BatchedSampler sampler = device.sampler();
  MeasureConfig config;
  config.strategy = Strategy::FIXED_AVERAGE;
  config.timed_iterations = 5;
  const MeasureOutcome outcome = run_timed_loop(config, sampler.time_once());
  EXPECT_EQ(outcome.iterations_run, 2);
  ASSERT_EQ(outcome.samples.size(), 1u);
  EXPECT_EQ(outcome.samples[0], 16 * kUnit * 1000.0);
  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(outcome.error_code, ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(outcome.message, "iteration 1: execution 3 of a batch of 800: device lost");
  EXPECT_EQ(device.executions, 1711 + 800 + 4);
}

TEST(BatchedSampler, SynchronizeErrorIsReported) {
  SimulatedDevice device;
  device.cost = kResolution;
  BatchedSampler sampler(device.clock(), device.action(),
                         [] { return Error(ErrorCode::EXECUTION_FAILED, "hipDeviceSynchronize failed"); },
                         options_with(kResolution));
  const Error error = sampler.calibrate();
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_THAT(error.message(), HasSubstr("hipDeviceSynchronize failed"));
  EXPECT_EQ(device.executions, 1);
}

TEST(BatchedSampler, ClockGoingBackwardsIsAnError) {
  SimulatedDevice device;
  std::vector<double> reads{5.0, 4.0};
  std::size_t next = 0;
  BatchedSampler sampler([&] { return reads[next++ % reads.size()]; }, device.action(), {},
                         options_with(kResolution));
  const Error error = sampler.calibrate();
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_THAT(error.message(), HasSubstr("clock went backwards"));
  EXPECT_EQ(next, 2u);
}

TEST(BatchedSampler, InvalidOptionsAreReportedWithoutRunningTheAction) {
  for (double resolution : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    SimulatedDevice device;
    BatchedSampler sampler = device.sampler(options_with(resolution));
    const Error error = sampler.calibrate();
    EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE) << resolution;
    EXPECT_THAT(error.message(), HasSubstr("clock_resolution_s"));
    EXPECT_FALSE(sampler.sample().ok());
    EXPECT_EQ(device.executions, 0);
  }
  SimulatedDevice device;
  BatchedSamplerOptions options = options_with(kResolution);
  options.max_batch_size = 0;
  EXPECT_EQ(device.sampler(options).calibrate().code(), ErrorCode::INVALID_VALUE);
  options = options_with(kResolution);
  options.resolution_multiple = 0.0;
  EXPECT_EQ(device.sampler(options).calibrate().code(), ErrorCode::INVALID_VALUE);
  BatchedSampler no_action(device.clock(), {}, {}, options_with(kResolution));
  EXPECT_EQ(no_action.calibrate().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(device.clock_reads, 0);
}

TEST(BatchedSampler, TimeOnceStaysValidAfterTheSamplerIsGone) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  TimeOnce time_once;
  {
    BatchedSampler sampler = device.sampler();
    time_once = sampler.time_once();
  }
  Result<double> sample = time_once(0);
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(*sample, 16 * kUnit * 1000.0);
}

MeasureConfig fixed_average(int timed) {
  MeasureConfig config;
  config.strategy = Strategy::FIXED_AVERAGE;
  config.timed_iterations = timed;
  return config;
}

TEST(BatchedSamplerWarmUp, TwoLongWarmUpExecutionsChooseBatchSizeOneWithoutExtraRuns) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;  // above the target of 10 resolutions
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(2).is_good());
  EXPECT_EQ(device.executions, 2);
  const MeasureOutcome outcome = run_timed_loop(fixed_average(7), sampler.time_once());
  ASSERT_FALSE(outcome.failed) << outcome.message;
  EXPECT_EQ(device.executions, 2 + 7);
  EXPECT_EQ(outcome.samples, std::vector<double>(7, 16 * kResolution * 1000.0));
  ASSERT_TRUE(sampler.calibration().has_value());
  EXPECT_EQ(sampler.batch_size(), 1);
  EXPECT_EQ(sampler.calibration()->extra_executions, 0);
  EXPECT_EQ(sampler.calibration()->rounds, 2);
  EXPECT_EQ(device.syncs, 2 + 7);
}

TEST(BatchedSamplerWarmUp, OneLongWarmUpExecutionIsConfirmedByTheFirstSample) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(1).is_good());
  const MeasureOutcome outcome = run_timed_loop(fixed_average(7), sampler.time_once());
  ASSERT_FALSE(outcome.failed) << outcome.message;
  EXPECT_EQ(device.executions, 1 + 7);
  EXPECT_EQ(outcome.samples, std::vector<double>(7, 16 * kResolution * 1000.0));
  EXPECT_EQ(sampler.batch_size(), 1);
  EXPECT_EQ(sampler.calibration()->extra_executions, 0);
  EXPECT_EQ(sampler.calibration()->rounds, 2);  // the warm-up execution and the first sample
}

TEST(BatchedSamplerWarmUp, ColdWarmUpThatTheFirstSampleDoesNotConfirmIsNotASample) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.first_execution_extra = 20480 * kUnit;  // only the warm-up execution looks long enough
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(1).is_good());
  const MeasureOutcome outcome = run_timed_loop(fixed_average(3), sampler.time_once());
  ASSERT_FALSE(outcome.failed) << outcome.message;
  // The first timed batch of 1 (16 units) is dropped; growth goes on from it: 10, 100 (x8), 800, 800.
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(sampler.calibration()->extra_executions, 1 + 10 + 100 + 800 + 800);
  EXPECT_EQ(sampler.calibration()->rounds, 6);
  EXPECT_EQ(outcome.samples, std::vector<double>(3, 16 * kUnit * 1000.0));
  EXPECT_EQ(device.executions, 1 + (1 + 10 + 100 + 800 + 800) + 3 * 800);
}

TEST(BatchedSamplerWarmUp, ShortWarmUpExecutionsStartTheGrowthAndTheBatchingIsReported) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(2).is_good());
  const MeasureOutcome outcome = run_timed_loop(fixed_average(7), sampler.time_once());
  ASSERT_FALSE(outcome.failed) << outcome.message;
  // The last warm-up execution (16 units) is the first round: then 10, 100 (x8), 800, 800.
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(sampler.calibration()->extra_executions, 10 + 100 + 800 + 800);
  EXPECT_EQ(sampler.calibration()->rounds, 2 + 4);
  EXPECT_EQ(device.executions, 2 + (10 + 100 + 800 + 800) + 7 * 800);
}

TEST(BatchedSamplerWarmUp, ALongWarmUpFollowedByAShortOneGrowsFromTheShortOne) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  device.first_execution_extra = 20480 * kUnit;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(2).is_good());
  ASSERT_TRUE(sampler.calibrate().is_good());
  EXPECT_EQ(sampler.batch_size(), 800);
  EXPECT_EQ(sampler.calibration()->extra_executions, 10 + 100 + 800 + 800);
  EXPECT_EQ(device.executions, 2 + 10 + 100 + 800 + 800);
}

TEST(BatchedSamplerWarmUp, CalibrateRunsTheConfirmationItselfAfterOneWarmUpExecution) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(1).is_good());
  ASSERT_TRUE(sampler.calibrate().is_good());
  EXPECT_EQ(sampler.batch_size(), 1);
  EXPECT_EQ(sampler.calibration()->extra_executions, 1);
  EXPECT_EQ(device.executions, 2);
  // Calibrating again starts from scratch: the warm-up times were used once.
  ASSERT_TRUE(sampler.calibrate().is_good());
  EXPECT_EQ(sampler.calibration()->extra_executions, 2);
  EXPECT_EQ(device.executions, 4);
}

TEST(BatchedSamplerWarmUp, NoWarmUpCalibratesFromScratch) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;
  BatchedSampler sampler = device.sampler();
  ASSERT_TRUE(sampler.warm_up(0).is_good());
  const MeasureOutcome outcome = run_timed_loop(fixed_average(7), sampler.time_once());
  ASSERT_FALSE(outcome.failed) << outcome.message;
  EXPECT_EQ(sampler.calibration()->extra_executions, 2);
  EXPECT_EQ(device.executions, 2 + 7);
}

TEST(BatchedSamplerWarmUp, AnExecutionErrorNamesTheWarmUpIteration) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;
  device.fail_at_execution = 2;
  BatchedSampler sampler = device.sampler();
  const Error error = sampler.warm_up(3);
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message(), "warmup iteration 1: device lost");
  EXPECT_EQ(device.executions, 2);
  EXPECT_EQ(sampler.warm_up(-1).message(), "warmup iterations must be at least 0, got -1");
  EXPECT_EQ(device.executions, 2);
  BatchedSampler invalid = device.sampler(options_with(0.0));
  EXPECT_EQ(invalid.warm_up(2).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(device.executions, 2);
}

// Captures what the sampler logs at debug level.
class CapturedLog {
 public:
  CapturedLog() : saved_(log::level()) {
    log::set_level(log::Level::DEBUG);
    log::set_sink([this](log::Level, std::string_view message) { lines.emplace_back(message); });
  }
  ~CapturedLog() {
    log::set_sink(nullptr);
    log::set_level(saved_);
  }
  std::vector<std::string> lines;

 private:
  log::Level saved_;
};

TEST(BatchedSamplerLog, EveryLineStartsWithTheCallersPrefix) {
  SimulatedDevice device;
  device.cost = 16 * kUnit;
  BatchedSamplerOptions options = options_with(kResolution);
  options.log_prefix = "calibrate:";
  BatchedSampler sampler = device.sampler(options);
  CapturedLog captured;
  ASSERT_TRUE(sampler.calibrate().is_good());
  ASSERT_EQ(captured.lines.size(), 1u);
  EXPECT_EQ(captured.lines[0].rfind("calibrate: batch size 800 (", 0), 0u) << captured.lines[0];
  EXPECT_THAT(captured.lines[0], HasSubstr("1711 extra executions"));
}

TEST(BatchedSamplerLog, BatchSizeOneChosenByTheWarmUpSaysSo) {
  SimulatedDevice device;
  device.cost = 16 * kResolution;
  BatchedSamplerOptions options = options_with(kResolution);
  options.log_prefix = "autotune: 'gemm':";
  BatchedSampler sampler = device.sampler(options);
  CapturedLog captured;
  ASSERT_TRUE(sampler.warm_up(2).is_good());
  ASSERT_TRUE(sampler.sample().ok());
  ASSERT_EQ(captured.lines.size(), 1u);
  EXPECT_EQ(captured.lines[0].rfind("autotune: 'gemm': batch size 1, chosen without extra executions", 0), 0u)
      << captured.lines[0];
}

TEST(EstimateClockResolution, ReturnsTheSmallestPositiveStep) {
  const std::vector<double> reads{0, 0, 3, 3, 5, 9, 9, 8.5};  // steps 0 3 0 2 4 0 -0.5
  std::size_t next = 0;
  EXPECT_EQ(estimate_clock_resolution([&] { return reads[next++]; }, 7), 2.0);
  EXPECT_EQ(next, 8u);  // probes + 1 reads
}

TEST(EstimateClockResolution, ReturnsZeroWhenTheClockNeverAdvances) {
  int reads = 0;
  EXPECT_EQ(estimate_clock_resolution([&] { ++reads; return 42.0; }, 5), 0.0);
  EXPECT_EQ(reads, 6);
}

TEST(EstimateClockResolution, ReturnsZeroWithoutReadingForNoProbes) {
  int reads = 0;
  EXPECT_EQ(estimate_clock_resolution([&] { ++reads; return 1.0; }, 0), 0.0);
  EXPECT_EQ(reads, 0);
  EXPECT_EQ(estimate_clock_resolution({}, 5), 0.0);
}

}  // namespace
}  // namespace tunekit::measure
