// AutotuneConfig defaults and validation, result defaults, and the ranking contract.
#include "tunekit/graph/autotune_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace tunekit::graph {
namespace {

AutotuneResult ok(std::int64_t id, double min_ms, std::int64_t workspace = 0) {
  AutotuneResult r;
  r.engine_id = id;
  r.engine_name = "e" + std::to_string(id);
  r.succeeded = true;
  r.min_time_ms = min_ms;
  r.workspace_size = workspace;
  r.compiled_plan_index = static_cast<int>(id);
  return r;
}

AutotuneResult failed(std::int64_t id) {
  AutotuneResult r;
  r.engine_id = id;
  r.error_message = "failed compile: no";
  return r;
}

std::vector<std::int64_t> ids(const std::vector<AutotuneResult>& results) {
  std::vector<std::int64_t> out;
  for (const auto& r : results) out.push_back(r.engine_id);
  return out;
}

std::vector<int> ranks(const std::vector<AutotuneResult>& results) {
  std::vector<int> out;
  for (const auto& r : results) out.push_back(r.rank);
  return out;
}

TEST(AutotuneConfig, DefaultsMatchTheSpecification) {
  const AutotuneConfig config;
  EXPECT_EQ(config.mode, TuneMode::STANDARD);
  EXPECT_EQ(config.strategy, AutotuneStrategy::RUN_UNTIL_STABLE);
  EXPECT_EQ(config.warmup_iterations, 1);
  EXPECT_EQ(config.timed_iterations, 10);
  EXPECT_EQ(config.max_iterations, 100);
  EXPECT_EQ(config.window_size, 3);
  EXPECT_DOUBLE_EQ(config.stability_threshold, 0.05);
  EXPECT_TRUE(config.engine_id_filter.empty());
  EXPECT_FALSE(config.ranking_fn);
  EXPECT_EQ(config.priming_failure_policy, PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE);
  EXPECT_TRUE(validate(config).is_good());
  const AutotuneStorageConfig storage;
  EXPECT_TRUE(storage.file_path.empty());
  EXPECT_FALSE(storage.delete_all_existing_content);
}

TEST(AutotuneConfig, RunUntilStableParametersAreValidated) {
  AutotuneConfig config;
  config.window_size = 1;
  EXPECT_EQ(validate(config).code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(validate(config).message().find("window_size"), std::string::npos);
  config = {};
  config.max_iterations = 2;
  EXPECT_NE(validate(config).message().find("max_iterations"), std::string::npos);
  for (double threshold : {0.0, 1.0, -0.1, 1.5}) {
    config = {};
    config.stability_threshold = threshold;
    EXPECT_NE(validate(config).message().find("stability_threshold"), std::string::npos) << threshold;
  }
  config = {};
  config.warmup_iterations = -1;
  EXPECT_NE(validate(config).message().find("warmup_iterations"), std::string::npos);
  config = {};
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 0;
  EXPECT_NE(validate(config).message().find("timed_iterations"), std::string::npos);
  config.window_size = 0;  // not checked under FIXED_AVERAGE
  config.timed_iterations = 5;
  EXPECT_TRUE(validate(config).is_good());
}

TEST(AutotuneResult, DefaultsDescribeAFailedUnrankedCandidate) {
  const AutotuneResult r;
  EXPECT_EQ(r.engine_id, -1);
  EXPECT_EQ(r.rank, -1);
  EXPECT_FALSE(r.succeeded);
  EXPECT_EQ(r.compiled_plan_index, -1);
  EXPECT_EQ(r.workspace_size, 0);  // section 6.1; "never compiled" is the compiled flag
  EXPECT_FALSE(r.compiled);
  EXPECT_EQ(r.batch_size, 0);
  EXPECT_EQ(r.calibration_executions, 0);
  EXPECT_FALSE(r.ran_exhaustive);
  EXPECT_EQ(r.mode_used, TuneMode::STANDARD);
}

TEST(RankAutotuneResults, DefaultRankingIsByMinTimeWithFailedLast) {
  std::vector<AutotuneResult> results{failed(9), ok(1, 3.0), ok(2, 1.0), failed(8), ok(3, 2.0)};
  rank_autotune_results(results, nullptr);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 3, 1, 9, 8}));
  EXPECT_EQ(ranks(results), (std::vector<int>{0, 1, 2, -1, -1}));
}

TEST(RankAutotuneResults, TiesKeepBenchmarkOrder) {
  std::vector<AutotuneResult> results{ok(5, 1.0), ok(4, 1.0), ok(3, 0.5)};
  rank_autotune_results(results, nullptr);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{3, 5, 4}));
}

TEST(RankAutotuneResults, CustomFunctionSeesOnlySucceededEntriesAndRanksAreReassigned) {
  std::size_t seen = 0;
  AutotuneRankingFn by_workspace = [&](std::vector<AutotuneResult>& rs) {
    seen = rs.size();
    for (const auto& r : rs) EXPECT_TRUE(r.succeeded);
    std::sort(rs.begin(), rs.end(), [](const auto& x, const auto& y) { return x.workspace_size < y.workspace_size; });
  };
  std::vector<AutotuneResult> results{ok(1, 1.0, 300), failed(7), ok(2, 2.0, 100), ok(3, 3.0, 200)};
  rank_autotune_results(results, by_workspace);
  EXPECT_EQ(seen, 3u);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 3, 1, 7}));
  EXPECT_EQ(ranks(results), (std::vector<int>{0, 1, 2, -1}));
}

TEST(RankAutotuneResults, ThrowingFunctionFallsBackToMinTime) {
  std::vector<AutotuneResult> results{ok(1, 3.0), ok(2, 1.0)};
  std::string reason;
  rank_autotune_results(results, [](std::vector<AutotuneResult>&) { throw std::runtime_error("boom"); }, &reason);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(reason, "the ranking function threw: boom");
}

TEST(RankAutotuneResults, FunctionThatAddsRemovesOrChangesEntriesIsIgnored) {
  const std::vector<AutotuneRankingFn> bad{
      [](std::vector<AutotuneResult>& rs) { rs.pop_back(); },
      [](std::vector<AutotuneResult>& rs) { rs.push_back(rs.front()); },
      [](std::vector<AutotuneResult>& rs) { rs.front().min_time_ms = 0.0; },
  };
  for (const auto& fn : bad) {
    std::vector<AutotuneResult> results{ok(1, 3.0), ok(2, 1.0)};
    std::string reason;
    rank_autotune_results(results, fn, &reason);
    EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 1}));
    EXPECT_EQ(reason, "the ranking function added, removed or changed entries");
  }
}

// A succeeded result whose samples are `typical` ms with multiplicative
// noise; min_time_ms is their minimum, as the runner reports it.
AutotuneResult timed(std::int64_t id, double typical, double spread, int count, std::uint32_t seed,
                     std::vector<KnobSetting> knobs = {}) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> noise(0.0, spread);
  AutotuneResult r = ok(id, 0.0);
  for (int i = 0; i < count; ++i) r.samples_ms.push_back(typical * noise(rng));
  r.min_time_ms = *std::min_element(r.samples_ms.begin(), r.samples_ms.end());
  r.knob_settings = std::move(knobs);
  return r;
}

TEST(TieRule, CandidatesWithinTheBandAreOrderedByEngineIdAndTheSlowerFollowByTime) {
  const measure::ComparisonConfig comparison;  // 2% at 95%
  // 9 is fastest; 4 is 0.5% slower (a tie); 2 is 30% slower; 6 is 10% slower.
  std::vector<AutotuneResult> results{timed(9, 1.0, 0.002, 20, 1), timed(2, 1.3, 0.002, 20, 2), failed(7),
                                      timed(4, 1.005, 0.002, 20, 3), timed(6, 1.1, 0.002, 20, 4)};
  rank_autotune_results(results, nullptr, nullptr, &comparison);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{4, 9, 6, 2, 7}));
  EXPECT_EQ(ranks(results), (std::vector<int>{0, 1, 2, 3, -1}));
  EXPECT_TRUE(results[0].tied_with_fastest);
  EXPECT_TRUE(results[1].tied_with_fastest);
  EXPECT_FALSE(results[2].tied_with_fastest);
  EXPECT_FALSE(results[4].tied_with_fastest);
  // Figures against the fastest (9): the tie with its interval, the slower ones.
  EXPECT_EQ(results[0].verdict_against_fastest, "tie");
  EXPECT_NEAR(results[0].ratio_to_fastest, 1.005, 0.002);
  EXPECT_LE(results[0].ratio_low, results[0].ratio_to_fastest);
  EXPECT_GE(results[0].ratio_high, results[0].ratio_to_fastest);
  EXPECT_TRUE(std::isnan(results[1].ratio_to_fastest));
  EXPECT_TRUE(results[1].verdict_against_fastest.empty());
  EXPECT_EQ(results[2].verdict_against_fastest, "slower");
  EXPECT_NEAR(results[3].ratio_to_fastest, 1.3, 0.01);
  EXPECT_TRUE(std::isnan(results[4].ratio_to_fastest));
}

TEST(TieRule, TheWinnerOfATieDoesNotDependOnWhichOneTheNoiseMadeFaster) {
  const measure::ComparisonConfig comparison;
  // Equal engines measured again and again: the noise changes which is
  // fastest, never which wins.
  int eight_was_faster = 0;
  for (std::uint32_t run = 0; run < 20; ++run) {
    std::vector<AutotuneResult> results{timed(8, 1.0, 0.003, 30, 100 + run), timed(3, 1.0, 0.003, 30, 200 + run)};
    eight_was_faster += results[0].min_time_ms < results[1].min_time_ms ? 1 : 0;
    rank_autotune_results(results, nullptr, nullptr, &comparison);
    EXPECT_EQ(results[0].engine_id, 3) << "run " << run;
  }
  EXPECT_GT(eight_was_faster, 3);
  EXPECT_LT(eight_was_faster, 17);
}

TEST(TieRule, UndecidedWithinTheBandTiesButBeyondItDoesNot) {
  const measure::ComparisonConfig comparison;
  // Three noisy samples: every comparison is undecided; the point estimate decides membership.
  std::vector<AutotuneResult> results{timed(5, 1.0, 0.05, 3, 5), timed(1, 1.01, 0.0001, 3, 6),
                                      timed(2, 1.2, 0.05, 3, 7)};
  results[1].samples_ms = {1.004, 1.005, 1.006};
  results[1].min_time_ms = 1.004;
  results[0].samples_ms = {1.0, 0.99, 1.06};
  results[0].min_time_ms = 0.99;
  rank_autotune_results(results, nullptr, nullptr, &comparison);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{1, 5, 2}));
  EXPECT_EQ(results[0].verdict_against_fastest, "undecided");
  EXPECT_FALSE(results[2].tied_with_fastest);
}

TEST(TieRule, KnobsBreakTiesOfOneEngineAndTooFewSamplesNeverTie) {
  const measure::ComparisonConfig comparison;
  std::vector<AutotuneResult> results{timed(3, 1.0, 0.0001, 20, 8, {{"tile", std::int64_t{64}}}),
                                      timed(3, 1.001, 0.0001, 20, 9, {{"tile", std::int64_t{32}}}),
                                      timed(1, 1.002, 0.0, 1, 10)};
  rank_autotune_results(results, nullptr, nullptr, &comparison);
  EXPECT_EQ(results[0].knob_settings[0].value, KnobValue{std::int64_t{32}});
  EXPECT_EQ(results[1].knob_settings[0].value, KnobValue{std::int64_t{64}});
  EXPECT_EQ(results[2].engine_id, 1);  // one sample: no interval, no tie
  EXPECT_EQ(results[2].verdict_against_fastest, "undecided");
  EXPECT_FALSE(results[2].tied_with_fastest);
}

TEST(TieRule, TheFastestIsTheSmallestMedianAndALoneFastestIsNoTie) {
  const measure::ComparisonConfig comparison;
  // 2 has the smallest minimum (one lucky sample) but 6 the smallest median.
  std::vector<AutotuneResult> results{timed(6, 1.0, 0.002, 20, 14), timed(2, 1.2, 0.002, 20, 15)};
  results[1].samples_ms[3] = 0.5;
  results[1].min_time_ms = 0.5;
  rank_autotune_results(results, nullptr, nullptr, &comparison);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{6, 2}));
  EXPECT_TRUE(results[0].verdict_against_fastest.empty());
  EXPECT_EQ(results[1].verdict_against_fastest, "slower");
  EXPECT_FALSE(results[0].tied_with_fastest);
  // Without samples (results made by hand) nothing ties and min_time_ms orders.
  std::vector<AutotuneResult> bare{ok(5, 1.0), ok(4, 1.001)};
  rank_autotune_results(bare, nullptr, nullptr, &comparison);
  EXPECT_EQ(ids(bare), (std::vector<std::int64_t>{5, 4}));
  EXPECT_EQ(bare[1].verdict_against_fastest, "undecided");
}

TEST(TieRule, ACandidateTheRaceDroppedKeepsItsComparisonAndNeverTies) {
  const measure::ComparisonConfig comparison;
  std::vector<AutotuneResult> results{timed(1, 1.0, 0.002, 5, 16), timed(2, 1.0, 0.002, 20, 17)};
  results[0].eliminated_after_round = 4;  // dropped against an earlier leader: its record stays
  results[0].ratio_to_fastest = 1.5;
  results[0].verdict_against_fastest = "slower";
  rank_autotune_results(results, nullptr, nullptr, &comparison);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(results[1].ratio_to_fastest, 1.5);
  EXPECT_EQ(results[1].verdict_against_fastest, "slower");
  EXPECT_FALSE(results[1].tied_with_fastest);
  // When every racer that stayed failed, a dropped one is the fastest.
  std::vector<AutotuneResult> only_dropped{timed(1, 1.0, 0.002, 5, 18), failed(2)};
  only_dropped[0].eliminated_after_round = 4;
  rank_autotune_results(only_dropped, nullptr, nullptr, &comparison);
  EXPECT_TRUE(only_dropped[0].verdict_against_fastest.empty());
}

TEST(TieRule, AZeroBandOrACustomRankingKeepsTheirOrderButTheFiguresAreFilled) {
  measure::ComparisonConfig no_band;
  no_band.tie_band = 0.0;
  std::vector<AutotuneResult> results{timed(9, 1.0, 0.002, 20, 11), timed(4, 1.005, 0.002, 20, 12)};
  rank_autotune_results(results, nullptr, nullptr, &no_band);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{9, 4}));
  EXPECT_FALSE(results[0].tied_with_fastest);
  EXPECT_EQ(results[1].verdict_against_fastest, "slower");

  const measure::ComparisonConfig comparison;
  std::vector<AutotuneResult> custom{timed(9, 1.0, 0.002, 20, 11), timed(4, 1.005, 0.002, 20, 12),
                                     timed(1, 2.0, 0.002, 20, 13)};
  auto reverse_by_time = [](std::vector<AutotuneResult>& rs) { std::reverse(rs.begin(), rs.end()); };
  rank_autotune_results(custom, reverse_by_time, nullptr, &comparison);
  EXPECT_EQ(ids(custom), (std::vector<std::int64_t>{1, 4, 9}));
  EXPECT_EQ(custom[0].verdict_against_fastest, "slower");
  EXPECT_EQ(custom[1].verdict_against_fastest, "tie");
}

TEST(AutotuneConfig, RaceAndComparisonParametersAreValidated) {
  AutotuneConfig c;
  c.strategy = AutotuneStrategy::RACE;
  EXPECT_FALSE(validate(c).is_bad());
  c.race_min_samples = 1;
  EXPECT_EQ(validate(c).message(), "race_min_samples must be at least 2 for race, got 1");
  c = {};
  c.tie_band = 1.5;
  EXPECT_EQ(validate(c).message(), "tie_band must be at least 0 and below 1, got 1.5");
  c = {};
  c.confidence = 0.0;
  EXPECT_EQ(validate(c).message(), "confidence must be strictly between 0 and 1, got 0");
  EXPECT_EQ(to_comparison_config(AutotuneConfig{}).tie_band, 0.02);
  EXPECT_EQ(to_comparison_config(AutotuneConfig{}).confidence, 0.95);
}

TEST(TuneMode, NamesRoundTrip) {
  EXPECT_EQ(to_string(TuneMode::STANDARD), "standard");
  EXPECT_EQ(parse_tune_mode("exhaustive"), TuneMode::EXHAUSTIVE);
  EXPECT_FALSE(parse_tune_mode("fast").has_value());
}

}  // namespace
}  // namespace tunekit::graph
