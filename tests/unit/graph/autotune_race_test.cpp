// autotune() with the RACE strategy and the tie rule, on scripted device
// time: eliminations with their rounds, interleaved executions, a failing
// racer, and the deterministic winner of a tie that execute() then runs.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

class AutotuneRace : public GraphFixture {
 protected:
  std::int64_t ws() const { return static_cast<std::int64_t>(workspace.size()); }
  static AutotuneConfig race(int min_samples = 5) {
    AutotuneConfig config;
    config.strategy = AutotuneStrategy::RACE;
    config.race_min_samples = min_samples;
    config.warmup_iterations = 2;
    return config;
  }
};

TEST_F(AutotuneRace, SlowerCandidatesLeaveAfterTheMinimumSamplesAndTheFastestWins) {
  add(behaviour(1, "slow", 4.0));
  add(behaviour(2, "fast", 1.0));
  add(behaviour(3, "medium", 2.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  LogCapture log;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), race(), {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].engine_name, "fast");
  EXPECT_EQ(results[0].eliminated_after_round, -1);
  EXPECT_TRUE(results[0].converged);
  for (int i = 1; i < 3; ++i) {
    SCOPED_TRACE(results[i].engine_name);
    EXPECT_TRUE(results[i].succeeded);
    EXPECT_EQ(results[i].eliminated_after_round, 4);
    EXPECT_EQ(results[i].verdict_against_fastest, "slower");
    EXPECT_EQ(results[i].strategy_used, AutotuneStrategy::RACE);
  }
  EXPECT_EQ(results[1].engine_name, "medium");
  EXPECT_NEAR(results[1].ratio_to_fastest, 2.0, 1e-12);
  for (const auto& r : results) {
    EXPECT_EQ(r.iterations_run, 5);
    EXPECT_EQ(r.samples_ms.size(), 5u);
    EXPECT_EQ(r.batch_size, 1);
    EXPECT_EQ(r.rewarm_executions, 5);
  }
  // Two warm-up executions and five samples each, every sample after an
  // untimed run of its batch: nothing more.
  for (const auto& e : engines) EXPECT_EQ(e->counters().executions, 2 + 5 * 2);
  EXPECT_EQ(log.count_containing("left the race after round 4"), 2);
  EXPECT_EQ(log.count_containing("race of 3 candidates ended after 5 rounds (one_left), 15 timed samples"), 1);
  const int before = engines[1]->counters().executions;
  ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[1]->counters().executions, before + 1);
}

TEST_F(AutotuneRace, TimedSamplesAreInterleavedAfterEveryWarmUp) {
  add(behaviour(1, "one", 1.0));
  add(behaviour(2, "two", 3.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), race(2)).is_good());
  std::vector<std::string> execs;
  for (const auto& e : sim->events) {
    if (e.rfind("exec:", 0) == 0) execs.push_back(e.substr(5));
  }
  // Warm-ups (two each, the plan alone), then rounds alternating which
  // starts, each sample right after an untimed run of the same candidate.
  const std::vector<std::string> expected{"one", "one", "two", "two", "one", "one",
                                          "two", "two", "two", "two", "one", "one"};
  ASSERT_GE(execs.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(execs.begin(), execs.begin() + 12), expected);
}

TEST_F(AutotuneRace, AFailingRacerFailsAloneWithItsIteration) {
  FakeBehaviour flaky = behaviour(1, "flaky", 0.5);
  // Its two warm-ups, then rounds 0 and 1 (each an untimed and a timed
  // run); the untimed run of round 2 fails, which fails the sample.
  flaky.fail_at_execution = 7;
  add(flaky);
  add(behaviour(2, "steady", 1.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), race(), {}, &results).is_good());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].engine_name, "steady");
  EXPECT_FALSE(results[1].succeeded);
  EXPECT_EQ(results[1].error_message,
            "failed benchmark: iteration 2: the untimed run before the sample: execution 0 of a batch of 1: kernel "
            "refused");
  EXPECT_EQ(results[1].rank, -1);
  EXPECT_EQ(results[1].samples_ms.size(), 2u);
  // The steady one: its warm-ups and five samples, each after an untimed run.
  EXPECT_EQ(engines[1]->counters().executions, 2 + 5 * 2);
}

TEST_F(AutotuneRace, ATieIsWonByTheLowerEngineIdWhicheverIsFaster) {
  // 7 is 1% faster than 4: inside the 2% band, so 4 wins; with no band, 7.
  add(behaviour(7, "seven", 1.0));
  add(behaviour(4, "four", 1.01));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  for (AutotuneStrategy strategy : {AutotuneStrategy::RACE, AutotuneStrategy::FIXED_AVERAGE,
                                    AutotuneStrategy::RUN_UNTIL_STABLE}) {
    SCOPED_TRACE(std::string(measure::to_string(strategy)));
    AutotuneConfig config = race();
    config.strategy = strategy;
    LogCapture log;
    std::vector<AutotuneResult> results;
    ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
    EXPECT_EQ(results[0].engine_name, "four");
    EXPECT_TRUE(results[0].tied_with_fastest);
    EXPECT_TRUE(results[1].tied_with_fastest);
    EXPECT_NEAR(results[0].ratio_to_fastest, 1.01, 1e-9);
    EXPECT_EQ(log.count_containing("2 candidates tie with the fastest within 2%"), 1);
    const int before = engines[1]->counters().executions;
    ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
    EXPECT_EQ(engines[1]->counters().executions, before + 1);

    config.tie_band = 0.0;
    ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
    EXPECT_EQ(results[0].engine_name, "seven");
    EXPECT_FALSE(results[0].tied_with_fastest);
  }
}

TEST_F(AutotuneRace, ARaceOfOneTakesTheMinimumSamples) {
  add(behaviour(1, "alone", 1.0));
  build();
  ASSERT_TRUE(graph.add_engine(1).is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), race(6), {}, &results).is_good());
  EXPECT_EQ(results[0].iterations_run, 6);
  EXPECT_TRUE(results[0].converged);
}

TEST_F(AutotuneRace, UnreliableMeasurementsAreReportedWithTheirReasons) {
  FakeBehaviour noisy = behaviour(1, "noisy");
  noisy.cost_script = {1.0, 3.0};
  add(noisy);
  add(behaviour(2, "steady", 2.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config;
  config.max_iterations = 12;
  config.window_size = 4;
  config.check_machine_load = false;
  LogCapture log;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  const AutotuneResult* n = find(results, 1);
  const AutotuneResult* steady = find(results, 2);
  ASSERT_TRUE(n && steady);
  EXPECT_EQ(n->unreliable_reason,
            "did not stabilise within 12 iterations (the last 4 never within 5%); dispersion 74.1% above the limit of "
            "10%");
  EXPECT_EQ(steady->unreliable_reason, "");
  EXPECT_EQ(log.count_containing("autotune: 'noisy': unreliable measurement: did not stabilise"), 1);

  // The limit is the config's; one outlier among steady samples is no dispersion.
  config.dispersion_limit = 0.8;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(find(results, 1)->unreliable_reason, "did not stabilise within 12 iterations (the last 4 never within 5%)");
  FakeBehaviour& spiky = engines[1]->behaviour();  // steady at 2 ms but for one preempted run
  spiky.cost_script = {2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 9.0};
  AutotuneConfig fixed = config;
  fixed.strategy = AutotuneStrategy::FIXED_AVERAGE;
  fixed.timed_iterations = 10;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed, {}, &results).is_good());
  EXPECT_GT(find(results, 2)->stddev_ms / find(results, 2)->avg_time_ms, 0.3);
  EXPECT_EQ(find(results, 2)->unreliable_reason, "");
  config.dispersion_limit = 0.0;
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws(), config).message(),
            "autotune: invalid AutotuneConfig: dispersion_limit must be above 0, got 0");
}

TEST_F(AutotuneRace, ARaceUndecidedAtItsRoundCapIsUnreliableForTheRacersLeft) {
  // Two warm-ups, then an untimed and a timed run per sample: the timed
  // runs take every other entry, so each candidate's samples alternate.
  FakeBehaviour a = behaviour(1, "a");
  a.cost_script = {1.0, 1.0, 1.3, 1.3};
  FakeBehaviour b = behaviour(2, "b");
  b.cost_script = {1.25, 1.25, 1.02, 1.02};
  add(a);
  add(b);
  add(behaviour(3, "slow", 5.0));
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config = race();
  config.max_iterations = 10;
  config.check_machine_load = false;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  for (std::int64_t id : {1, 2}) {
    const AutotuneResult* r = find(results, id);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->iterations_run, 10);
    EXPECT_FALSE(r->converged);
    EXPECT_NE(r->unreliable_reason.find("the race was not decided within 10 rounds"), std::string::npos)
        << r->unreliable_reason;
  }
  // Dropped as slower with steady times: a decided, reliable measurement.
  EXPECT_EQ(find(results, 3)->eliminated_after_round, 4);
  EXPECT_EQ(find(results, 3)->unreliable_reason, "");
}

}  // namespace
}  // namespace tunekit::graph::testing
