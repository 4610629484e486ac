// The race over scripted timings: eliminations, ties, the round limit,
// failures, the interleaving order and bad configs.
#include "tunekit/measure/race.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace tunekit::measure {
namespace {

MeasureConfig race_config(int min_samples = 5, int max_rounds = 100) {
  MeasureConfig c;
  c.strategy = Strategy::RACE;
  c.race_min_samples = min_samples;
  c.max_iterations = max_rounds;
  return c;
}

// A candidate whose times are `typical` ms with multiplicative noise.
TimeOnce noisy(double typical, double spread, std::uint32_t seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  auto noise = std::make_shared<std::lognormal_distribution<double>>(0.0, spread);
  return [=](int) -> Result<double> { return typical * (*noise)(*rng); };
}

TEST(Race, AClearlyFasterCandidateWinsAfterTheMinimumSamples) {
  const std::vector<TimeOnce> candidates{noisy(2.0, 0.01, 1), noisy(1.0, 0.01, 2)};
  const RaceOutcome race = run_race(race_config(), {}, candidates);
  EXPECT_EQ(race.end, RaceEnd::ONE_LEFT);
  EXPECT_EQ(race.rounds, 5);
  EXPECT_EQ(race.samples_taken, 10);
  EXPECT_EQ(race.entries[0].eliminated_after_round, 4);
  EXPECT_EQ(race.entries[0].against_leader.verdict, Verdict::SLOWER);
  EXPECT_NEAR(race.entries[0].against_leader.ratio, 2.0, 0.05);
  EXPECT_EQ(race.entries[1].eliminated_after_round, -1);
  EXPECT_TRUE(race.entries[1].measured.converged);
  EXPECT_EQ(race.entries[1].measured.samples.size(), 5u);
  EXPECT_NEAR(race.entries[1].measured.min_ms, 1.0, 0.05);
}

TEST(Race, SlowCandidatesDropOutAndTiedOnesEndTheRace) {
  // A and C are 0.5% apart with little noise: a tie within 2%; B is 50% slower.
  const std::vector<TimeOnce> candidates{noisy(1.0, 0.002, 3), noisy(1.5, 0.002, 4), noisy(1.005, 0.002, 5)};
  const RaceOutcome race = run_race(race_config(), {}, candidates);
  EXPECT_EQ(race.end, RaceEnd::ALL_TIED);
  EXPECT_EQ(race.entries[1].eliminated_after_round, 4);
  EXPECT_EQ(race.entries[0].eliminated_after_round, -1);
  EXPECT_EQ(race.entries[2].eliminated_after_round, -1);
  EXPECT_EQ(race.entries[2].against_leader.verdict, Verdict::TIE);
  EXPECT_LT(race.samples_taken, 3 * 10);
}

TEST(Race, AnUndecidableRaceStopsAtTheRoundLimitUnconverged) {
  // 2% apart with 10% noise: 20 rounds cannot place the ratio inside or outside the band.
  const std::vector<TimeOnce> candidates{noisy(1.0, 0.10, 6), noisy(1.02, 0.10, 7)};
  const RaceOutcome race = run_race(race_config(5, 20), {}, candidates);
  EXPECT_EQ(race.end, RaceEnd::ROUND_LIMIT);
  EXPECT_EQ(race.rounds, 20);
  EXPECT_EQ(race.samples_taken, 40);
  for (const RaceEntry& entry : race.entries) {
    EXPECT_FALSE(entry.measured.converged);
    EXPECT_EQ(entry.measured.samples.size(), 20u);
    EXPECT_EQ(entry.measured.iterations_run, 20);
  }
}

TEST(Race, EliminationsWaitForTheMinimumSamples) {
  // Hugely different from the first round on, yet nobody leaves before round 8.
  const std::vector<TimeOnce> candidates{noisy(1.0, 0.01, 8), noisy(10.0, 0.01, 9)};
  const RaceOutcome race = run_race(race_config(8), {}, candidates);
  EXPECT_EQ(race.entries[1].eliminated_after_round, 7);
  EXPECT_EQ(race.entries[1].measured.samples.size(), 8u);
}

TEST(Race, EachRoundStartsOneCandidateFurther) {
  std::vector<int> order;
  std::vector<TimeOnce> candidates;
  for (int c = 0; c < 3; ++c) {
    candidates.push_back([&order, c](int) -> Result<double> {
      order.push_back(c);
      return 1.0 + 0.1 * c;  // constant: exact intervals, so every comparison is decided
    });
  }
  const RaceOutcome race = run_race(race_config(3, 3), {}, candidates);
  const std::vector<int> expected{0, 1, 2, 1, 2, 0, 2, 0, 1};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(race.end, RaceEnd::ONE_LEFT);
  EXPECT_EQ(race.entries[0].eliminated_after_round, -1);
}

TEST(Race, AFailingCandidateLeavesAloneWithItsReason) {
  int calls = 0;
  std::vector<TimeOnce> candidates{noisy(1.0, 0.01, 10),
                                   [&](int round) -> Result<double> {
                                     ++calls;
                                     if (round == 2) return Error{ErrorCode::EXECUTION_FAILED, "kernel crashed"};
                                     return 0.5;
                                   },
                                   noisy(1.5, 0.01, 11)};
  const RaceOutcome race = run_race(race_config(), {}, candidates);
  EXPECT_TRUE(race.entries[1].measured.failed);
  EXPECT_EQ(race.entries[1].measured.message, "iteration 2: kernel crashed");
  EXPECT_EQ(race.entries[1].measured.samples.size(), 2u);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(race.end, RaceEnd::ONE_LEFT);
  EXPECT_EQ(race.entries[2].eliminated_after_round, 4);
  EXPECT_FALSE(race.entries[0].measured.failed);
}

TEST(Race, RejectedSamplesAndAllFailures) {
  const std::vector<TimeOnce> candidates{[](int) -> Result<double> { return std::nan(""); },
                                         [](int) -> Result<double> { return -1.0; }};
  const RaceOutcome race = run_race(race_config(), {}, candidates);
  EXPECT_EQ(race.end, RaceEnd::ALL_FAILED);
  EXPECT_EQ(race.entries[0].measured.message, "iteration 0 returned a NaN time");
  EXPECT_EQ(race.entries[1].measured.message, "iteration 0 returned a negative time (-1 ms)");
  EXPECT_EQ(race.rounds, 1);
}

TEST(Race, BadConfigsRunNothing) {
  int calls = 0;
  const std::vector<TimeOnce> candidates{[&](int) -> Result<double> {
    ++calls;
    return 1.0;
  }};
  MeasureConfig stable = race_config();
  stable.strategy = Strategy::RUN_UNTIL_STABLE;
  EXPECT_EQ(run_race(stable, {}, candidates).message,
            "invalid measure config: run_race needs strategy race, got run_until_stable");
  EXPECT_EQ(run_race(race_config(1), {}, candidates).message,
            "invalid measure config: race_min_samples must be at least 2 for race, got 1");
  EXPECT_EQ(run_race(race_config(5, 4), {}, candidates).message,
            "invalid measure config: max_iterations must be at least race_min_samples (5) for race, got 4");
  ComparisonConfig bad_band;
  bad_band.tie_band = 2.0;
  const RaceOutcome bad = run_race(race_config(), bad_band, candidates);
  EXPECT_EQ(bad.message, "invalid comparison config: tie_band must be at least 0 and below 1, got 2");
  EXPECT_EQ(bad.end, RaceEnd::INVALID);
  ASSERT_EQ(bad.entries.size(), 1u);
  EXPECT_TRUE(bad.entries[0].measured.failed);
  const std::vector<TimeOnce> empty_callable{TimeOnce{}};
  EXPECT_EQ(run_race(race_config(), {}, empty_callable).message, "a candidate has no time_once callable");
  EXPECT_EQ(calls, 0);
}

TEST(Race, ALoneCandidateInTheTimedLoopTakesTheMinimumSamples) {
  int calls = 0;
  const MeasureOutcome m = run_timed_loop(race_config(4), [&](int) -> Result<double> {
    ++calls;
    return 1.0;
  });
  EXPECT_EQ(calls, 4);
  EXPECT_TRUE(m.converged);
  EXPECT_EQ(parse_strategy("race"), Strategy::RACE);
  EXPECT_EQ(to_string(Strategy::RACE), "race");
  EXPECT_EQ(to_string(RaceEnd::ALL_TIED), "all_tied");
}

}  // namespace
}  // namespace tunekit::measure
