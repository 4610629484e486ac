// autotune() timing flows with scripted device time: strategies with exact
// iteration counts, device sync after warm-up, batching below the timer's
// resolution, EXHAUSTIVE priming and its policies, the compiled-plan path
// and the autotune: log categories.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

class AutotuneFlow : public GraphFixture {
 protected:
  std::int64_t ws() const { return static_cast<std::int64_t>(workspace.size()); }
};

TEST_F(AutotuneFlow, FixedAverageRunsExactlyTheTimedIterations) {
  FakeBehaviour e = behaviour(1, "scripted");
  e.cost_script = {1.0, 3.0};  // alternating per execution
  add(e);
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 7;
  config.warmup_iterations = 0;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].iterations_run, 7);
  EXPECT_TRUE(results[0].converged);
  EXPECT_NEAR(results[0].min_time_ms, 1.0, 1e-9);
  EXPECT_GT(results[0].stddev_ms, 0.9);
}

TEST_F(AutotuneFlow, CandidatesAfterTheDeadlineAreNotMeasuredAndEveryResultSaysTheBudgetRanOut) {
  add(behaviour(1, "first", 1.0));
  add(behaviour(2, "second", 2.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 3;
  std::vector<AutotuneResult> results;
  for (AutotuneStrategy strategy : {AutotuneStrategy::FIXED_AVERAGE, AutotuneStrategy::RACE}) {
    config.strategy = strategy;
    config.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
    const Error spent = graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results);
    EXPECT_EQ(spent.code(), ErrorCode::EXECUTION_FAILED) << spent.message();
    ASSERT_EQ(results.size(), 2u);
    for (const AutotuneResult& r : results) {
      EXPECT_FALSE(r.succeeded);
      EXPECT_EQ(r.error_message, kBudgetSpentMessage);
      EXPECT_TRUE(r.budget_ran_out);
      EXPECT_EQ(r.iterations_run, 0);
    }
  }
  // A budget that lasts leaves the run as it was.
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  for (const AutotuneResult& r : results) {
    EXPECT_TRUE(r.succeeded);
    EXPECT_FALSE(r.budget_ran_out);
    EXPECT_EQ(r.iterations_run, 3);
  }
}

TEST_F(AutotuneFlow, RunUntilStableStopsAtTheWindowForStableTimes) {
  add(behaviour(1, "steady", 2.0));
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), AutotuneConfig{}, {}, &results).is_good());
  EXPECT_EQ(results[0].iterations_run, 3);
  EXPECT_TRUE(results[0].converged);
  EXPECT_EQ(results[0].strategy_used, AutotuneStrategy::RUN_UNTIL_STABLE);
  EXPECT_DOUBLE_EQ(results[0].avg_time_ms, 2.0);
}

TEST_F(AutotuneFlow, RunUntilStableGivesUpAtMaxIterationsForUnstableTimes) {
  FakeBehaviour e = behaviour(1, "noisy");
  e.cost_script = {1.0, 3.0};
  add(e);
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  AutotuneConfig config;
  config.max_iterations = 12;
  config.window_size = 4;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].iterations_run, 12);
  EXPECT_FALSE(results[0].converged);
  EXPECT_TRUE(results[0].succeeded);
  EXPECT_NEAR(results[0].min_time_ms, 1.0, 1e-9);
  EXPECT_NEAR(results[0].avg_time_ms, 2.0, 1e-9);
  EXPECT_NEAR(results[0].stddev_ms, 1.0, 1e-9);
}

TEST_F(AutotuneFlow, BenchmarkFailureMidLoopIsReportedWithItsIterations) {
  FakeBehaviour e = behaviour(1, "flaky", 1.0);
  e.fail_at_execution = 6;
  add(e);
  add(behaviour(2, "solid", 2.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 10;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].engine_name, "solid");
  EXPECT_EQ(results[1].engine_name, "flaky");
  EXPECT_FALSE(results[1].succeeded);
  EXPECT_FALSE(results[1].converged);
  EXPECT_EQ(results[1].error_message.rfind("failed benchmark: iteration", 0), 0u) << results[1].error_message;
}

TEST_F(AutotuneFlow, DeviceIsSynchronizedAfterEachPlansWarmup) {
  add(behaviour(1, "one", 1.0));
  add(behaviour(2, "two", 1.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.warmup_iterations = 2;
  config.timed_iterations = 3;
  sim->events.clear();
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config).is_good());
  // Each plan: two warm-up executions, a device sync, then only its timed executions.
  const auto& ev = sim->events;
  const auto first_sync = std::find(ev.begin(), ev.end(), "sync");
  ASSERT_NE(first_sync, ev.end());
  EXPECT_EQ(std::vector<std::string>(ev.begin(), first_sync), (std::vector<std::string>{"exec:one", "exec:one"}));
  const auto second_sync = std::find(first_sync + 1, ev.end(), "sync");
  ASSERT_NE(second_sync, ev.end());
  for (auto it = first_sync + 1; it != second_sync - 2; ++it) EXPECT_EQ(*it, "exec:one");
  EXPECT_EQ(*(second_sync - 1), "exec:two");
  EXPECT_EQ(*(second_sync - 2), "exec:two");
  EXPECT_EQ(std::count(ev.begin(), ev.end(), "sync"), 2);
}

TEST_F(AutotuneFlow, ExecutionsBelowTheTimerResolutionAreBatched) {
  sim->resolution_ms = 1.0 / 1024.0;
  add(behaviour(1, "tiny", 1.0 / 65536.0));  // 1/64 of the resolution
  add(behaviour(2, "small", 1.0 / 32768.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 5;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].engine_name, "tiny");
  EXPECT_NEAR(results[0].min_time_ms, 1.0 / 65536.0, 1e-12);
  EXPECT_NEAR(results[1].min_time_ms, 1.0 / 32768.0, 1e-12);
  EXPECT_EQ(results[0].iterations_run, 5);
  // Each timed sample spans at least ten resolutions, so far more executions than samples ran.
  EXPECT_GT(engines[0]->counters().executions, 5 * 640);
}

TEST_F(AutotuneFlow, FixedAverageExecutesThePlanExactlyWarmupPlusTimedTimesWhenNoBatchingIsNeeded) {
  add(behaviour(1, "long", 1.0));  // 1 ms: far above ten timer resolutions (10/1024 ms)
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.warmup_iterations = 2;
  config.timed_iterations = 7;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(engines[0]->counters().executions, 2 + 7);
  EXPECT_EQ(results[0].iterations_run, 7);
  EXPECT_NEAR(results[0].min_time_ms, 1.0, 1e-9);
  EXPECT_EQ(results[0].batch_size, 1);
  EXPECT_EQ(results[0].calibration_executions, 0);
}

TEST_F(AutotuneFlow, OneWarmUpExecutionIsEnoughToAvoidExtraExecutions) {
  add(behaviour(1, "steady", 2.0));
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  std::vector<AutotuneResult> results;  // defaults: one warm-up, run until stable over a window of 3
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), AutotuneConfig{}, {}, &results).is_good());
  EXPECT_EQ(results[0].iterations_run, 3);
  EXPECT_EQ(engines[0]->counters().executions, 1 + 3);
  EXPECT_EQ(results[0].batch_size, 1);
  EXPECT_EQ(results[0].calibration_executions, 0);
}

TEST_F(AutotuneFlow, BatchedTimingAddsOnlyTheCalibrationExecutions) {
  add(behaviour(1, "short", 3.0 / 4096.0));  // 3/4 of the timer's resolution
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.warmup_iterations = 2;
  config.timed_iterations = 7;
  std::vector<AutotuneResult> results;
  LogCapture logs;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  // The last warm-up execution (3/4096 ms) is the first round towards the
  // target of 40/4096 ms: batches of 10 (x10 at most), 17 (x1.67), 17 again to confirm.
  EXPECT_EQ(engines[0]->counters().executions, 2 + (10 + 17 + 17) + 7 * 17);
  EXPECT_NEAR(results[0].min_time_ms, 3.0 / 4096.0, 1e-12);
  EXPECT_EQ(results[0].iterations_run, 7);
  EXPECT_EQ(results[0].batch_size, 17);
  EXPECT_EQ(results[0].calibration_executions, 10 + 17 + 17);
  EXPECT_EQ(logs.count_containing("autotune: 'short': one execution is too short for the timer: timed in batches of "
                                  "17 (44 extra executions to choose the batch)",
                                  log::Level::INFO),
            1);
}

TEST_F(AutotuneFlow, EveryLineLoggedDuringAutotuneStartsWithAutotune) {
  FakeBehaviour primable = behaviour(1, "primable", 2.0);
  primable.descriptor.knobs = {benchmarking_knob()};
  primable.fail_when_primed = true;
  add(primable);
  add(behaviour(2, "tiny", 1.0 / 65536.0));  // batched
  FakeBehaviour broken = behaviour(3, "broken");
  broken.fail_compile = true;
  add(broken);
  FakeBehaviour refuses = behaviour(4, "refuses");
  refuses.fail_execute = true;
  add(refuses);
  FakeBehaviour big = behaviour(5, "big");
  big.workspace = [](const KnobValues&) { return std::int64_t{1} << 21; };
  add(big);
  add(behaviour(6, "filtered", 1.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.mode = TuneMode::EXHAUSTIVE;
  config.priming_failure_policy = PrimingFailurePolicy::BENCHMARK_UNPRIMED;
  config.engine_id_filter = {1, 2, 3, 4, 5};
  LogCapture logs;  // debug level
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].engine_name, "tiny");
  // The measurement core's own lines are among them, in the autotune category.
  EXPECT_EQ(logs.count_containing("autotune: 'tiny': batch size ", log::Level::DEBUG), 1);
  EXPECT_EQ(logs.count_containing("autotune: 'primable': batch size 1, chosen without extra executions",
                                  log::Level::DEBUG),
            1);
  EXPECT_GT(logs.lines().size(), 10u);
  for (const auto& line : logs.lines()) EXPECT_EQ(line.rfind("autotune:", 0), 0u) << line;
}

TEST_F(AutotuneFlow, ErrorsAreReturnedAndNotAlsoLoggedAtErrorLevel) {
  FakeBehaviour refuses = behaviour(1, "refuses");
  refuses.fail_execute = true;
  add(refuses);
  FakeBehaviour picky = behaviour(2, "picky");
  picky.descriptor.knobs = {benchmarking_knob()};
  picky.fail_when_primed = true;
  add(picky);
  build();
  LogCapture logs;
  EXPECT_EQ(graph.autotune(nullptr, pack, workspace.data(), ws()).code(), ErrorCode::INVALID_VALUE);
  ASSERT_TRUE(graph.add_engine(1).is_good());
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws()).code(), ErrorCode::EXECUTION_FAILED);
  ASSERT_TRUE(graph.add_engine(2).is_good());
  AutotuneConfig exhaustive;
  exhaustive.mode = TuneMode::EXHAUSTIVE;
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws(), exhaustive).code(), ErrorCode::EXECUTION_FAILED);
  AutotuneConfig filtered;
  filtered.engine_id_filter = {99};
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws(), filtered).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(logs.lines(log::Level::ERROR), std::vector<std::string>{});
  // The run is still traced, at debug level.
  EXPECT_EQ(logs.count_containing("autotune: invalid handle (null)", log::Level::DEBUG), 1);
}

class Exhaustive : public AutotuneFlow {
 protected:
  void SetUp() override {
    AutotuneFlow::SetUp();
    FakeBehaviour primable = behaviour(1, "primable", 2.0);
    primable.descriptor.knobs = {benchmarking_knob(), int_knob("level", 0, 0, 3)};
    add(primable);
    FakeBehaviour plain = behaviour(2, "plain", 3.0);
    add(plain);
    FakeBehaviour picky = behaviour(3, "picky", 1.0);
    picky.descriptor.knobs = {benchmarking_knob()};
    picky.fail_when_primed = true;
    add(picky);
  }
  AutotuneConfig config(PrimingFailurePolicy policy) {
    AutotuneConfig c;
    c.mode = TuneMode::EXHAUSTIVE;
    c.strategy = AutotuneStrategy::FIXED_AVERAGE;
    c.timed_iterations = 2;
    c.priming_failure_policy = policy;
    return c;
  }
};

TEST_F(Exhaustive, PrimingFailureAbortsByDefault) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  std::vector<AutotuneResult> results;
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(),
                               config(PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE), {}, &results);
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message(),
            "autotune: priming failed for 'picky' (engine id 3): priming plan failed compile: cannot prime");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(find(results, 3)->error_message, "priming failed: priming plan failed compile: cannot prime");
  EXPECT_EQ(engines[1]->counters().executions, 0);  // nothing was benchmarked
}

TEST_F(Exhaustive, BenchmarkUnprimedContinuesAndRecordsWhy) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  ASSERT_TRUE(graph.add_engine(1, {{"level", 2}}).is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config(PrimingFailurePolicy::BENCHMARK_UNPRIMED),
                             {}, &results)
                  .is_good());
  ASSERT_EQ(results.size(), 4u);
  const AutotuneResult& picky = *find(results, 3);
  EXPECT_TRUE(picky.succeeded);
  EXPECT_EQ(picky.rank, 0);
  EXPECT_TRUE(picky.supports_exhaustive);
  EXPECT_FALSE(picky.ran_exhaustive);
  EXPECT_EQ(picky.exhaustive_not_run_reason, "priming plan failed compile: cannot prime");
  EXPECT_TRUE(picky.error_message.empty());
  const AutotuneResult& plain = *find(results, 2);
  EXPECT_FALSE(plain.supports_exhaustive);
  EXPECT_FALSE(plain.ran_exhaustive);
  EXPECT_TRUE(plain.exhaustive_not_run_reason.empty());
  EXPECT_EQ(plain.mode_used, TuneMode::EXHAUSTIVE);
  for (const auto& r : results) {
    if (r.engine_id == 1) {
      EXPECT_TRUE(r.ran_exhaustive);
      EXPECT_TRUE(r.exhaustive_not_run_reason.empty());
    }
  }
  // One priming execution per primable spec, none for the others.
  EXPECT_EQ(engines[0]->counters().primed_executions, 2);
  EXPECT_EQ(engines[1]->counters().primed_executions, 0);
}

TEST_F(Exhaustive, PrimingPlanThatDoesNotFitIsSkippedNotFailed) {
  engines[0]->behaviour().workspace = [](const KnobValues& k) {
    return k.get_int(kBenchmarkingKnob) == 1 ? std::int64_t{1 << 22} : std::int64_t{0};
  };
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  LogCapture logs;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(),
                             config(PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE), {}, &results)
                  .is_good());
  EXPECT_TRUE(results[0].succeeded);
  EXPECT_FALSE(results[0].ran_exhaustive);
  EXPECT_EQ(results[0].exhaustive_not_run_reason,
            "priming skipped: priming plan workspace 4194304 bytes exceeds limit 1048576 bytes");
  EXPECT_EQ(engines[0]->counters().primed_executions, 0);
  EXPECT_EQ(logs.count_containing("priming skipped", log::Level::WARN), 1);  // the estimate (0) fitted
  EXPECT_EQ(logs.count_containing("autotune: priming: 0 primed, 1 skipped for workspace, 0 failed"), 1);
}

TEST_F(Exhaustive, IsRejectedOnTheCompiledPlanPath) {
  build();
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), config(PrimingFailurePolicy::BENCHMARK_UNPRIMED)).message(),
            "autotune: EXHAUSTIVE mode needs the plan-spec path; on the compiled-plan path set global.benchmarking with "
            "create_execution_plan_ext()");
}

TEST_F(AutotuneFlow, CompiledPathSelectsTheWinnerByStableIndexAndLogsEveryCategory) {
  add(behaviour(1, "slow", 3.0));
  add(behaviour(2, "barred", 0.5));
  add(behaviour(3, "fast", 1.0));
  build();
  graph.deselect_engines(std::vector<std::string>{"barred"});
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.check_support().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  LogCapture logs;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), AutotuneConfig{}, {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].engine_name, "fast");
  EXPECT_EQ(results[0].compiled_plan_index, 2);
  EXPECT_EQ(results[1].compiled_plan_index, 0);
  EXPECT_EQ(results[2].engine_name, "barred");
  EXPECT_NE(results[2].error_message.find("Plan barred"), std::string::npos);
  EXPECT_EQ(graph.get_execution_plan_count(), 3);
  const int before = engines[2]->counters().executions;
  ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[2]->counters().executions, before + 1);

  for (const char* category : {"autotune: session start: 3 candidates (compiled-plan path), mode standard, strategy "
                               "run_until_stable, workspace limit none",
                               "autotune: benchmarking 'slow' (engine id 1, plan 0)", "autotune: 'fast' iteration 0:",
                               "autotune: 'fast': min 1.000000 ms", "autotune: ranking: 2 succeeded, 1 failed",
                               "autotune: winner 'fast' (engine id 3, defaults) at 1.000000 ms"}) {
    EXPECT_EQ(logs.count_containing(category), 1) << category;
  }
  // Every line of the run is in the autotune: category, the measure module's included.
  for (const auto& line : logs.lines()) EXPECT_EQ(line.rfind("autotune:", 0), 0u) << line;

  // The cuDNN-compatible overloads forward to the compiled-plan path.
  EXPECT_TRUE(graph.autotune(handle.get(), pack, workspace.data()).is_good());
  TensorLookup lookup{{a, a_data.data()}, {b, b_data.data()}, {c, c_data.data()}};
  EXPECT_TRUE(graph.autotune(handle.get(), lookup, workspace.data()).is_good());
  EXPECT_TRUE(graph.autotune(handle.get(), lookup, workspace.data(), ws(), AutotuneConfig{}).is_good());
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), std::int64_t{0}, AutotuneConfig{}, {}, &results).code(),
            ErrorCode::OK);
}

TEST_F(AutotuneFlow, PlanSpecCompilationIsLogged) {
  add(behaviour(1, "ok", 1.0));
  FakeBehaviour broken = behaviour(2, "broken");
  broken.fail_compile = true;
  add(broken);
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  LogCapture logs;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws()).is_good());
  EXPECT_EQ(logs.count_containing("autotune: compilation: 1 compiled, 1 failed"), 1);
  EXPECT_EQ(logs.count_containing("autotune: 'broken' (engine id 2): failed compile: compiler said no", log::Level::WARN), 1);
}

}  // namespace
}  // namespace tunekit::graph::testing
