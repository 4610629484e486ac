// Timing loops against a scripted timer; every test pins the exact number of
// calls so that an off-by-one in either strategy cannot pass.
#include "tunekit/measure/timed_run_loop.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tunekit::measure {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Replays a sequence of samples; fails at call fail_at (0-based) when set.
// Calls past the end of the script fail too, so over-running is visible.
struct ScriptedTimer {
  explicit ScriptedTimer(std::vector<double> samples, int fail_at_call = -1)
      : script(std::move(samples)), fail_at(fail_at_call) {}

  std::vector<double> script;
  int fail_at;
  std::vector<int> indices;  // the iteration argument of every call

  TimeOnce time_once() {
    return [this](int iteration) -> Result<double> {
      const int call = static_cast<int>(indices.size());
      indices.push_back(iteration);
      if (call == fail_at) return Error(ErrorCode::EXECUTION_FAILED, "kernel launch failed");
      if (call >= static_cast<int>(script.size())) return Error(ErrorCode::INTERNAL, "script exhausted");
      return script[static_cast<std::size_t>(call)];
    };
  }
  int calls() const { return static_cast<int>(indices.size()); }
};

MeasureConfig until_stable(int window, int max_iterations, double threshold) {
  MeasureConfig config;
  config.strategy = Strategy::RUN_UNTIL_STABLE;
  config.window_size = window;
  config.max_iterations = max_iterations;
  config.stability_threshold = threshold;
  return config;
}

MeasureConfig fixed_average(int timed) {
  MeasureConfig config;
  config.strategy = Strategy::FIXED_AVERAGE;
  config.timed_iterations = timed;
  return config;
}

TEST(TimedRunLoop, FixedAverageRunsExactlyTimedIterations) {
  ScriptedTimer timer({2, 4, 4, 6, 99});
  const MeasureOutcome outcome = run_timed_loop(fixed_average(4), timer.time_once());
  EXPECT_EQ(timer.calls(), 4);
  EXPECT_THAT(timer.indices, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(outcome.iterations_run, 4);
  EXPECT_THAT(outcome.samples, ElementsAre(2, 4, 4, 6));
  EXPECT_TRUE(outcome.converged);
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(outcome.error_code, ErrorCode::OK);
  EXPECT_EQ(outcome.message, "");
  EXPECT_EQ(outcome.min_ms, 2.0);
  EXPECT_EQ(outcome.avg_ms, 4.0);
  EXPECT_DOUBLE_EQ(outcome.stddev_ms, std::sqrt(2.0));  // (4 + 0 + 0 + 4) / 4
}

TEST(TimedRunLoop, FixedAverageDoesNotStopEarlyOnStableTimings) {
  ScriptedTimer timer({5, 5, 5, 5, 5, 5});
  const MeasureOutcome outcome = run_timed_loop(fixed_average(6), timer.time_once());
  EXPECT_EQ(timer.calls(), 6);
  EXPECT_EQ(outcome.iterations_run, 6);
  EXPECT_TRUE(outcome.converged);
  EXPECT_EQ(outcome.stddev_ms, 0.0);
}

TEST(TimedRunLoop, RunUntilStableStopsAtTheFirstStableWindow) {
  // Windows of 3 end at calls 3 ([1 2 1]), 4 ([2 1 1]) and 5 ([1 1 1]); only the last has CoV 0.
  ScriptedTimer timer({1, 2, 1, 1, 1, 1, 1});
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 100, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 5);
  EXPECT_EQ(outcome.iterations_run, 5);
  EXPECT_THAT(outcome.samples, ElementsAre(1, 2, 1, 1, 1));
  EXPECT_TRUE(outcome.converged);
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(outcome.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(outcome.avg_ms, 1.2);
  EXPECT_DOUBLE_EQ(outcome.stddev_ms, 0.4);
}

TEST(TimedRunLoop, RunUntilStableChecksOnlyOnceTheWindowIsFull) {
  // The first two samples already agree, but a window of 3 needs three.
  ScriptedTimer timer({4, 4, 4, 4});
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 100, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_EQ(outcome.iterations_run, 3);
  EXPECT_TRUE(outcome.converged);
}

TEST(TimedRunLoop, RunUntilStableLooksOnlyAtTheLastWindow) {
  // The whole series varies a lot; its last two samples do not.
  ScriptedTimer timer({100, 1, 50, 10, 10, 7});
  const MeasureOutcome outcome = run_timed_loop(until_stable(2, 100, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 5);
  EXPECT_TRUE(outcome.converged);
}

TEST(TimedRunLoop, CovEqualToTheThresholdIsNotStable) {
  // [1 3] has mean 2 and population stddev 1: CoV exactly 0.5. Then [3 3] has CoV 0.
  ScriptedTimer timer({1, 3, 3, 3});
  const MeasureOutcome outcome = run_timed_loop(until_stable(2, 100, 0.5), timer.time_once());
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_TRUE(outcome.converged);
}

TEST(TimedRunLoop, UnstableTimingsRunToMaxIterationsWithoutConverging) {
  ScriptedTimer timer({1, 3, 1, 3, 1, 3, 1, 3, 1, 3});
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 7, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 7);
  EXPECT_EQ(outcome.iterations_run, 7);
  EXPECT_EQ(outcome.samples.size(), 7u);
  EXPECT_FALSE(outcome.converged);
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(outcome.message, "");
  EXPECT_EQ(outcome.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(outcome.avg_ms, 13.0 / 7.0);
}

TEST(TimedRunLoop, StabilityReachedOnTheLastAllowedIterationCountsAsConverged) {
  ScriptedTimer timer({1, 3, 1, 2, 2, 9});
  const MeasureOutcome outcome = run_timed_loop(until_stable(2, 5, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 5);
  EXPECT_TRUE(outcome.converged);
}

TEST(TimedRunLoop, MaxIterationsEqualToWindowRunsOneCheck) {
  ScriptedTimer timer({1, 3, 1, 1});
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 3, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_FALSE(outcome.converged);
}

TEST(TimedRunLoop, FailureAtIterationNStopsAfterExactlyNPlusOneCalls) {
  ScriptedTimer timer({1, 3, 1, 3, 1, 3}, /*fail_at=*/2);
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 100, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_EQ(outcome.iterations_run, 3);
  EXPECT_THAT(outcome.samples, ElementsAre(1, 3));
  EXPECT_TRUE(outcome.failed);
  EXPECT_FALSE(outcome.converged);
  EXPECT_EQ(outcome.error_code, ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(outcome.message, "iteration 2: kernel launch failed");
  EXPECT_EQ(outcome.min_ms, 1.0);  // statistics still describe the accepted samples
  EXPECT_EQ(outcome.avg_ms, 2.0);
}

TEST(TimedRunLoop, FixedAverageFailureIsNotConverged) {
  ScriptedTimer timer({1, 1, 1, 1}, /*fail_at=*/0);
  const MeasureOutcome outcome = run_timed_loop(fixed_average(4), timer.time_once());
  EXPECT_EQ(timer.calls(), 1);
  EXPECT_EQ(outcome.iterations_run, 1);
  EXPECT_TRUE(outcome.samples.empty());
  EXPECT_TRUE(outcome.failed);
  EXPECT_FALSE(outcome.converged);
  EXPECT_EQ(outcome.min_ms, 0.0);
  EXPECT_EQ(outcome.avg_ms, 0.0);
  EXPECT_EQ(outcome.stddev_ms, 0.0);
}

TEST(TimedRunLoop, NaNSampleIsRejectedAsAFailure) {
  ScriptedTimer timer({1, kNaN, 1, 1});
  const MeasureOutcome outcome = run_timed_loop(fixed_average(4), timer.time_once());
  EXPECT_EQ(timer.calls(), 2);
  EXPECT_EQ(outcome.iterations_run, 2);
  EXPECT_THAT(outcome.samples, ElementsAre(1));
  EXPECT_TRUE(outcome.failed);
  EXPECT_FALSE(outcome.converged);
  EXPECT_EQ(outcome.error_code, ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(outcome.message, "iteration 1 returned a NaN time");
}

TEST(TimedRunLoop, NegativeSampleIsRejectedAsAFailure) {
  ScriptedTimer timer({1, 1, -0.5, 1});
  const MeasureOutcome outcome = run_timed_loop(until_stable(3, 10, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_TRUE(outcome.failed);
  EXPECT_FALSE(outcome.converged);
  EXPECT_EQ(outcome.message, "iteration 2 returned a negative time (-0.5 ms)");
}

TEST(TimedRunLoop, InfiniteSampleIsRejectedAsAFailure) {
  ScriptedTimer timer({std::numeric_limits<double>::infinity()});
  const MeasureOutcome outcome = run_timed_loop(fixed_average(3), timer.time_once());
  EXPECT_EQ(timer.calls(), 1);
  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(outcome.message, "iteration 0 returned an infinite time (inf ms)");
}

TEST(TimedRunLoop, ZeroSamplesAreValidAndStable) {
  ScriptedTimer timer({0, 0, 0, 0});
  const MeasureOutcome outcome = run_timed_loop(until_stable(2, 10, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 2);
  EXPECT_TRUE(outcome.converged);
  EXPECT_FALSE(outcome.failed);
}

TEST(TimedRunLoop, InvalidConfigFailsWithoutTiming) {
  ScriptedTimer timer({1, 1, 1});
  const MeasureOutcome outcome = run_timed_loop(until_stable(1, 10, 0.05), timer.time_once());
  EXPECT_EQ(timer.calls(), 0);
  EXPECT_EQ(outcome.iterations_run, 0);
  EXPECT_TRUE(outcome.failed);
  EXPECT_FALSE(outcome.converged);
  EXPECT_EQ(outcome.error_code, ErrorCode::INVALID_VALUE);
  EXPECT_EQ(outcome.message,
            "invalid measure config: window_size must be at least 2 for run_until_stable, got 1");
}

TEST(TimedRunLoop, EmptyTimeOnceFailsInsteadOfThrowing) {
  const MeasureOutcome outcome = run_timed_loop(fixed_average(3), TimeOnce{});
  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(outcome.iterations_run, 0);
  EXPECT_EQ(outcome.error_code, ErrorCode::INVALID_VALUE);
}

TEST(TimedRunLoop, ProgressReportsEveryAcceptedIterationWithTheWindowCov) {
  ScriptedTimer timer({1, 3, 3, 3});
  std::vector<IterationProgress> seen;
  const MeasureOutcome outcome = run_timed_loop(until_stable(2, 10, 0.05), timer.time_once(),
                                                [&](const IterationProgress& p) { seen.push_back(p); });
  EXPECT_EQ(timer.calls(), 3);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].iteration, 0);
  EXPECT_EQ(seen[0].sample_ms, 1.0);
  EXPECT_TRUE(std::isnan(seen[0].window_cov));  // window not full yet
  EXPECT_EQ(seen[1].iteration, 1);
  EXPECT_EQ(seen[1].window_cov, 0.5);  // [1 3]
  EXPECT_EQ(seen[2].iteration, 2);
  EXPECT_EQ(seen[2].window_cov, 0.0);  // [3 3]
  EXPECT_TRUE(outcome.converged);
}

TEST(TimedRunLoop, ProgressUnderFixedAverageHasNoWindowCovAndSkipsTheFailedIteration) {
  ScriptedTimer timer({2, 2, 2}, /*fail_at=*/2);
  int reports = 0;
  const auto count = [&](const IterationProgress& p) {
    ++reports;
    EXPECT_TRUE(std::isnan(p.window_cov));
  };
  const MeasureOutcome outcome = run_timed_loop(fixed_average(3), timer.time_once(), count);
  EXPECT_EQ(timer.calls(), 3);
  EXPECT_EQ(reports, 2);
  EXPECT_TRUE(outcome.failed);
}

TEST(RunWarmup, RunsExactlyTheRequestedIterations) {
  int calls = 0;
  EXPECT_TRUE(run_warmup(3, [&] { ++calls; return Error::ok(); }).is_good());
  EXPECT_EQ(calls, 3);
}

TEST(RunWarmup, ZeroIterationsRunNothing) {
  int calls = 0;
  EXPECT_TRUE(run_warmup(0, [&] { ++calls; return Error::ok(); }).is_good());
  EXPECT_EQ(calls, 0);
}

TEST(RunWarmup, StopsAtTheFirstFailure) {
  int calls = 0;
  const Error error = run_warmup(5, [&] {
    return ++calls == 2 ? Error(ErrorCode::EXECUTION_FAILED, "out of memory") : Error::ok();
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message(), "warmup iteration 1: out of memory");
}

TEST(RunWarmup, NegativeIterationsAreRejectedWithoutRunning) {
  int calls = 0;
  const Error error = run_warmup(-1, [&] { ++calls; return Error::ok(); });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_THAT(error.message(), HasSubstr("-1"));
}

TEST(RunWarmup, EmptyCallableIsRejected) {
  EXPECT_EQ(run_warmup(2, {}).code(), ErrorCode::INVALID_VALUE);
}

}  // namespace
}  // namespace tunekit::measure
