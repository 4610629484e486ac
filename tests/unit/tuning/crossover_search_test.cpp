#include "tunekit/tuning/crossover_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tunekit::tuning {
namespace {

// A model machine: the baseline costs `size` units, the candidate a fixed
// overhead plus size / speedup. Five samples with a small spread each.
struct Model {
  double overhead = 1000;
  double speedup = 2;
  double noise = 0.01;
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction function() {
    return [this](std::int64_t size) -> Result<PathTimings> {
      probed.push_back(size);
      PathTimings t;
      for (int i = -2; i <= 2; ++i) {
        t.baseline_ms.push_back(static_cast<double>(size) * (1 + noise * i));
        t.candidate_ms.push_back((overhead + static_cast<double>(size) / speedup) * (1 + noise * i));
      }
      return t;
    };
  }
};

TEST(CrossoverSearch, BracketsThenRefinesNearTheTrueCrossover) {
  Model model;  // equal at size 2000; a 5% margin with 1% noise needs about 2300
  CrossoverOptions options;
  options.maximum_size = 1 << 20;
  auto result = find_crossover(options, model.function());
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_TRUE(result->threshold.has_value()) << result->reason;
  EXPECT_GE(*result->threshold, 2000);
  EXPECT_LE(*result->threshold, 2900);
  // Doubling from 1 reaches 2048 (lost) and 4096 (won), confirmed at 8192:
  // 14 probes, then bisection between 2048 and 4096.
  ASSERT_GE(model.probed.size(), 14u);
  EXPECT_EQ(model.probed[11], 2048);
  EXPECT_EQ(model.probed[12], 4096);
  EXPECT_EQ(model.probed[13], 8192);
  EXPECT_LT(model.probed.size(), 20u);  // far fewer than a grid
  for (std::size_t i = 14; i < model.probed.size(); ++i) {
    EXPECT_GT(model.probed[i], 2048);
    EXPECT_LT(model.probed[i], 4096);
  }
}

TEST(CrossoverSearch, ALargerMarginMovesTheThresholdToWhereTheCandidateWinsByIt) {
  // Candidate / baseline = 1000 / size + 0.5: 5% faster from 2222, 15% from 2857.
  CrossoverOptions options;
  options.maximum_size = 1 << 20;
  options.margin = 0.15;
  Model model;
  auto result = find_crossover(options, model.function());
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_TRUE(result->threshold.has_value()) << result->reason;
  EXPECT_GE(*result->threshold, 2857) << result->reason;
  EXPECT_LE(*result->threshold, 4000) << result->reason;
  EXPECT_NE(result->reason.find("by at least 15%"), std::string::npos) << result->reason;
}

TEST(CrossoverSearch, NoThresholdWhenTheCandidateNeverWins) {
  Model model;
  model.speedup = 1.0;  // never faster
  CrossoverOptions options;
  options.maximum_size = 1 << 16;
  auto result = find_crossover(options, model.function());
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->threshold.has_value());
  EXPECT_EQ(result->reason, "no two consecutive wins by 5% up to size 65536");
  EXPECT_EQ(model.probed.size(), 17u);  // 1, 2, ..., 65536
}

TEST(CrossoverSearch, OverlappingMeasurementsAreNotWins) {
  Model model;
  model.overhead = 0;
  model.speedup = 1.03;  // 3% faster: below the 5% margin
  CrossoverOptions options;
  options.maximum_size = 1024;
  auto result = find_crossover(options, model.function());
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->threshold.has_value());
  for (const CrossoverProbe& p : result->probes) EXPECT_NE(p.verdict, ProbeVerdict::CANDIDATE_WINS);
}

TEST(CrossoverSearch, ASingleWinIsNotEnough) {
  // The candidate wins only at exactly 64 (a measurement fluke).
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction fluke = [&](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    PathTimings t{{10, 10, 10, 10, 10}, {size == 64 ? 5.0 : 20.0, size == 64 ? 5.0 : 20.0, 20, 20, 20}};
    if (size == 64) t.candidate_ms = {5, 5, 5, 5, 5};
    return t;
  };
  CrossoverOptions options;
  options.maximum_size = 512;
  auto result = find_crossover(options, fluke);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->threshold.has_value());
  EXPECT_EQ(probed, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
}

TEST(CrossoverSearch, ASingleNoisyWinDuringRefinementDoesNotMoveTheThreshold) {
  // The candidate truly wins from 1024; one noisy measurement wins at 724.
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction noisy = [&](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    const bool wins = size >= 1024 || size == 724;
    return PathTimings{{10, 10, 10, 10, 10}, std::vector<double>(5, wins ? 5.0 : 20.0)};
  };
  CrossoverOptions options;
  options.maximum_size = 1 << 16;
  auto result = find_crossover(options, noisy);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->threshold, 1069) << result->reason;
  // Bracketing ends with 1024 confirmed at 2048; bisection probes 724, which
  // wins, and its confirmation at 861 (between 724 and 1024) loses. The
  // confirmation of 1024 then moves closer: 1448, 1218, 1117 and 1069 win,
  // and 1069 / 861 is within the refine ratio.
  EXPECT_EQ(probed, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 724, 861, 1448,
                                               1218, 1117, 1069}));
}

TEST(CrossoverSearch, AConfirmedWinDuringRefinementLowersTheThreshold) {
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction clean = [&](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    return PathTimings{{10, 10, 10, 10, 10}, std::vector<double>(5, size >= 600 ? 5.0 : 20.0)};
  };
  CrossoverOptions options;
  options.maximum_size = 1 << 16;
  auto result = find_crossover(options, clean);
  ASSERT_TRUE(result.ok());
  // 724 wins, confirmed at 861: the bound moves to 724; 609 wins, confirmed
  // at 664: 609. 664 / 512 is above the refine ratio, and a win at 636
  // (between 609 and 664) brings the confirmation within it. The threshold
  // is the confirming size, 636: the candidate has won there and below it.
  EXPECT_EQ(probed, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 724, 861, 609,
                                               664, 636}));
  EXPECT_EQ(result->threshold, 636) << result->reason;
  EXPECT_EQ(result->reason, "the candidate wins from size 636 (two consecutive wins by at least 5%, at 609 and 636)");
}

TEST(CrossoverSearch, WinningFromTheMinimumGivesTheMinimum) {
  Model model;
  model.overhead = 0;
  CrossoverOptions options;
  options.minimum_size = 16;
  options.maximum_size = 1024;
  auto result = find_crossover(options, model.function());
  ASSERT_TRUE(result.ok());
  // 16 wins, confirmed at 32; the confirmation moves to 23, then 19.
  EXPECT_EQ(result->threshold, 19);
  EXPECT_EQ(model.probed, (std::vector<std::int64_t>{16, 32, 23, 19}));
}

TEST(CrossoverSearch, ALossBetweenTheWinsKeepsTheFarConfirmation) {
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction dip = [&](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    const bool wins = size >= 256 && size != 362;
    return PathTimings{{10, 10, 10, 10, 10}, std::vector<double>(5, wins ? 5.0 : 20.0)};
  };
  CrossoverOptions options;
  options.maximum_size = 1 << 16;
  auto result = find_crossover(options, dip);
  ASSERT_TRUE(result.ok());
  // 256 wins, confirmed at 512; bisection below 256 loses at 181 and 215;
  // 362, between the two wins, loses: 512 stays the threshold.
  EXPECT_EQ(probed, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 181, 215, 362}));
  EXPECT_EQ(result->threshold, 512) << result->reason;
}

// A clean step: the candidate takes half the baseline's time from `step` on
// and one and a half times it below, with the Model's 1% spread.
CrossoverProbeFunction clean_step(std::int64_t step, std::vector<std::int64_t>& probed) {
  return [step, &probed](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    const double candidate_share = size >= step ? 0.5 : 1.5;
    PathTimings t;
    for (int i = -2; i <= 2; ++i) {
      t.baseline_ms.push_back(static_cast<double>(size) * (1 + 0.01 * i));
      t.candidate_ms.push_back(static_cast<double>(size) * candidate_share * (1 + 0.01 * i));
    }
    return t;
  };
}

TEST(CrossoverSearch, ACleanStepIsFoundWithin25Percent) {
  for (const double margin : {0.05, 0.15}) {
    for (const std::int64_t step : std::vector<std::int64_t>{777, 5000, 40000, 1 << 20}) {
      std::vector<std::int64_t> probed;
      CrossoverOptions options;
      options.margin = margin;
      auto result = find_crossover(options, clean_step(step, probed));
      ASSERT_TRUE(result.ok()) << result.error().message();
      ASSERT_TRUE(result->threshold.has_value()) << result->reason;
      EXPECT_GE(*result->threshold, step) << "margin " << margin << ": " << result->reason;
      EXPECT_LE(*result->threshold, step + step / 4) << "margin " << margin << ": " << result->reason;
      EXPECT_LE(probed.size(), 30u) << "step " << step;
    }
  }
}

TEST(CrossoverSearch, AStepAt5000CostsTwentyProbes) {
  std::vector<std::int64_t> probed;
  auto result = find_crossover({}, clean_step(5000, probed));
  ASSERT_TRUE(result.ok());
  // Doubling loses up to 4096 and wins at 8192, confirmed at 16384; 5793
  // wins, confirmed at 6889; 4871 loses; 5312 wins, confirmed at 5547, and
  // 5547 / 4871 is within the refine ratio.
  EXPECT_EQ(probed, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                               5793, 6889, 4871, 5312, 5547}));
  EXPECT_EQ(result->threshold, 5547) << result->reason;
  EXPECT_EQ(result->reason,
            "the candidate wins from size 5547 (two consecutive wins by at least 5%, at 5312 and 5547)");
}

TEST(CrossoverSearch, EveryCleanStepIsFoundWithinTheRefineRatioOfTheLargestLossBelowIt) {
  // Every step from 9 to 300, then steps 7% apart up to 4 million: the
  // threshold is a size the candidate won, and at most 1.25 times a size it
  // lost, so within 25% of the step wherever it lies. (Below 9 no integer
  // size above the step is within 25% of the size below it.)
  for (std::int64_t step = 9; step < (1 << 22); step = step < 300 ? step + 1 : step * 107 / 100) {
    std::vector<std::int64_t> probed;
    auto result = find_crossover({}, clean_step(step, probed));
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(result->threshold.has_value()) << "step " << step << ": " << result->reason;
    const std::int64_t threshold = *result->threshold;
    std::int64_t largest_loss = 0;
    for (const CrossoverProbe& p : result->probes) {
      if (p.verdict != ProbeVerdict::CANDIDATE_WINS && p.size < threshold) {
        largest_loss = std::max(largest_loss, p.size);
      }
    }
    EXPECT_GE(threshold, step) << result->reason;
    EXPECT_LE(static_cast<double>(threshold), 1.25 * static_cast<double>(largest_loss)) << "step " << step;
    // Doubling to the step and its confirmation, then four to six more.
    const auto doubling = static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(step)))) + 2;
    EXPECT_LE(probed.size(), doubling + 6) << "step " << step;
  }
}

TEST(CrossoverSearch, ASingleNoisyWinAtAnyMeasurementDoesNotMoveTheThresholdBelowTheStep) {
  // The clean step at 5000, except that one measurement, the k-th, reports
  // a clear candidate win whatever the size: the threshold stays at or
  // above the step and within 25% of it.
  std::vector<std::int64_t> clean_probes;
  ASSERT_TRUE(find_crossover({}, clean_step(5000, clean_probes)).ok());
  for (std::size_t k = 0; k < clean_probes.size(); ++k) {
    std::vector<std::int64_t> probed;
    const CrossoverProbeFunction clean = clean_step(5000, probed);
    CrossoverProbeFunction noisy = [&](std::int64_t size) -> Result<PathTimings> {
      Result<PathTimings> t = clean(size);
      if (probed.size() == k + 1) t->candidate_ms = std::vector<double>(5, static_cast<double>(size) * 0.5);
      return t;
    };
    auto result = find_crossover({}, noisy);
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(result->threshold.has_value()) << "noisy measurement " << k << ": " << result->reason;
    EXPECT_GE(*result->threshold, 5000) << "noisy measurement " << k << " at " << probed[k] << ": " << result->reason;
    EXPECT_LE(*result->threshold, 6250) << "noisy measurement " << k << " at " << probed[k] << ": " << result->reason;
  }
}

TEST(CrossoverSearch, ASizeThatAlwaysWinsBelowTheStepDoesNotMoveTheThresholdBelowIt) {
  // The clean step at 5000, except that one size below it (each size the
  // clean search measured, in turn) always reports a clear candidate win,
  // as a size with a lucky alignment would: the threshold stays at or above
  // the step and within 25% of it.
  std::vector<std::int64_t> clean_probes;
  ASSERT_TRUE(find_crossover({}, clean_step(5000, clean_probes)).ok());
  for (const std::int64_t lucky : clean_probes) {
    if (lucky >= 5000) continue;
    std::vector<std::int64_t> probed;
    const CrossoverProbeFunction clean = clean_step(5000, probed);
    CrossoverProbeFunction noisy = [&](std::int64_t size) -> Result<PathTimings> {
      Result<PathTimings> t = clean(size);
      if (size == lucky) t->candidate_ms = std::vector<double>(5, static_cast<double>(size) * 0.5);
      return t;
    };
    auto result = find_crossover({}, noisy);
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(result->threshold.has_value()) << "lucky size " << lucky << ": " << result->reason;
    EXPECT_GE(*result->threshold, 5000) << "lucky size " << lucky << ": " << result->reason;
    EXPECT_LE(*result->threshold, 6250) << "lucky size " << lucky << ": " << result->reason;
  }
}

// A candidate that ties the baseline (within the margin) up to 4096 and
// wins clearly from there; the baseline wins below `baseline_until`.
CrossoverProbeFunction tie_then_win(std::int64_t baseline_until, std::vector<std::int64_t>& probed) {
  return [baseline_until, &probed](std::int64_t size) -> Result<PathTimings> {
    probed.push_back(size);
    const double candidate = size < baseline_until ? 12.0 : size < 4096 ? 9.8 : 5.0;
    return PathTimings{{10, 10, 10, 10, 10}, std::vector<double>(5, candidate)};
  };
}

TEST(CrossoverSearch, APreferredThresholdInTheTieIsKept) {
  std::vector<std::int64_t> probed;
  CrossoverOptions options;
  options.preferred_threshold = 32;
  auto result = find_crossover(options, tie_then_win(8, probed));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->threshold, 32) << result->reason;
  EXPECT_EQ(result->reason,
            "the candidate wins from size 4467 (two consecutive wins by at least 5%); the preferred threshold 32 is "
            "kept: the baseline last won at 4");
}

TEST(CrossoverSearch, APreferredThresholdWhereTheBaselineWinsMovesToTheCrossover) {
  std::vector<std::int64_t> probed;
  CrossoverOptions options;
  options.preferred_threshold = 32;
  auto result = find_crossover(options, tie_then_win(100, probed));  // the baseline wins at 32 and 64
  ASSERT_TRUE(result.ok());
  EXPECT_GE(*result->threshold, 4096) << result->reason;
  EXPECT_LE(*result->threshold, 5120) << result->reason;
}

TEST(CrossoverSearch, ABaselineWinThatIsNotReproducedKeepsThePreferredThreshold) {
  // Ties up to 4096 and wins from there, but the first measurement at 64
  // (above the preferred 32) is a baseline win that the second does not see.
  std::vector<std::int64_t> probed;
  CrossoverProbeFunction tie = tie_then_win(8, probed);
  int measured_at_64 = 0;
  CrossoverProbeFunction noisy = [&](std::int64_t size) -> Result<PathTimings> {
    Result<PathTimings> t = tie(size);
    if (size == 64 && ++measured_at_64 == 1) t->candidate_ms.assign(5, 12.0);
    return t;
  };
  CrossoverOptions options;
  options.preferred_threshold = 32;
  auto result = find_crossover(options, noisy);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->threshold, 32) << result->reason;
  EXPECT_EQ(measured_at_64, 2);
  EXPECT_EQ(result->probes.back().size, 64);  // the recheck comes last
  EXPECT_EQ(result->reason,
            "the candidate wins from size 4467 (two consecutive wins by at least 5%); the preferred threshold 32 is "
            "kept: the baseline last won at 4");
}

TEST(CrossoverSearch, ABaselineWinTheProbeLimitLeavesUnmeasuredKeepsThePreferredThreshold) {
  // The baseline wins at 32 and 64 (above the preferred 16), but the probes
  // run out before either is measured again.
  std::vector<std::int64_t> probed;
  CrossoverOptions options;
  options.preferred_threshold = 16;
  options.maximum_size = 1 << 13;
  const CrossoverProbeFunction tie = tie_then_win(100, probed);
  // Count the probes the search needs before its recheck, then allow exactly those.
  ASSERT_TRUE(find_crossover(options, tie).ok());
  const auto before_recheck = static_cast<int>(probed.size()) - 1;  // the last probe is the recheck of 64
  ASSERT_EQ(probed.back(), 64);
  probed.clear();
  options.maximum_probes = before_recheck;
  auto result = find_crossover(options, tie);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(static_cast<int>(probed.size()), before_recheck);
  EXPECT_EQ(result->threshold, 16) << result->reason;
  EXPECT_NE(result->reason.find("the baseline's win at 64 was not measured again (probe limit)"), std::string::npos)
      << result->reason;
}

TEST(CrossoverSearch, AReproducedBaselineWinMovesThePreferredThreshold) {
  std::vector<std::int64_t> probed;
  CrossoverOptions options;
  options.preferred_threshold = 32;
  auto result = find_crossover(options, tie_then_win(100, probed));  // the baseline wins at 32 and 64
  ASSERT_TRUE(result.ok());
  EXPECT_GT(*result->threshold, 4096) << result->reason;
  // Only the largest baseline win at or above 32 is measured again, once.
  EXPECT_EQ(std::count(probed.begin(), probed.end(), 64), 2);
  EXPECT_EQ(std::count(probed.begin(), probed.end(), 32), 1);
}

TEST(CrossoverSearch, APreferredThresholdAboveTheConfirmedWinsMovesDown) {
  std::vector<std::int64_t> probed;
  CrossoverOptions options;
  options.preferred_threshold = 1 << 20;
  auto result = find_crossover(options, tie_then_win(8, probed));
  ASSERT_TRUE(result.ok());
  EXPECT_GE(*result->threshold, 4096) << result->reason;
  EXPECT_LE(*result->threshold, 5120) << result->reason;
}

TEST(CrossoverSearch, ProbeErrorsStopTheSearch) {
  int calls = 0;
  CrossoverProbeFunction failing = [&](std::int64_t size) -> Result<PathTimings> {
    if (++calls == 3) return Error(ErrorCode::EXECUTION_FAILED, "wrong result at element 5");
    return PathTimings{{double(size)}, {double(size)}};
  };
  auto result = find_crossover({}, failing);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "wrong result at element 5");
  EXPECT_EQ(calls, 3);
}

TEST(CrossoverSearch, InvalidOptionsAreRejected) {
  CrossoverOptions bad;
  bad.margin = 1.5;
  EXPECT_FALSE(find_crossover(bad, [](std::int64_t) -> Result<PathTimings> { return PathTimings{}; }).ok());
  bad = {};
  bad.maximum_size = 0;
  EXPECT_FALSE(find_crossover(bad, [](std::int64_t) -> Result<PathTimings> { return PathTimings{}; }).ok());
}

TEST(Judge, VerdictsFollowMarginAndDispersion) {
  EXPECT_EQ(judge(1, {{10, 10, 10}, {9, 9, 9}}, 0.05).verdict, ProbeVerdict::CANDIDATE_WINS);
  EXPECT_EQ(judge(1, {{10, 10, 10}, {9.7, 9.7, 9.7}}, 0.05).verdict, ProbeVerdict::OVERLAP);
  EXPECT_EQ(judge(1, {{9, 9, 9}, {10, 10, 10}}, 0.05).verdict, ProbeVerdict::BASELINE_WINS);
  // Faster median, but the spreads overlap.
  EXPECT_EQ(judge(1, {{6, 10, 14}, {5, 9, 13}}, 0.05).verdict, ProbeVerdict::OVERLAP);
  // One sample a path decides nothing.
  EXPECT_EQ(judge(1, {{10}, {5}}, 0.05).verdict, ProbeVerdict::OVERLAP);
  EXPECT_TRUE(judge(1, {{10}, {5}}, 0.05).undecided);
  // A tie within the band is an overlap that is decided; a win is decided.
  EXPECT_FALSE(judge(1, {{10, 10, 10}, {9.7, 9.7, 9.7}}, 0.05).undecided);
  EXPECT_FALSE(judge(1, {{10, 10, 10}, {9, 9, 9}}, 0.05).undecided);
  EXPECT_TRUE(judge(1, {{6, 10, 14}, {5, 9, 13}}, 0.05).undecided);
}

TEST(Judge, TheVerdictIsTheSharedComparisonsWithTheMarginAsTieBand) {
  // Five samples a path with a 2% spread, the candidate's median 8% faster:
  // the interval of the ratio (about [0.90, 0.94]) lies below 1 - 5%, but
  // not below 1 - 15%.
  const PathTimings timings{{9.8, 9.9, 10.0, 10.1, 10.2}, {9.0, 9.1, 9.2, 9.3, 9.4}};
  const CrossoverProbe five = judge(7, timings, 0.05);
  EXPECT_EQ(five.size, 7);
  EXPECT_EQ(five.verdict, ProbeVerdict::CANDIDATE_WINS);
  EXPECT_DOUBLE_EQ(five.ratio, 9.2 / 10.0);
  EXPECT_LE(five.ratio_low, five.ratio);
  EXPECT_GE(five.ratio_high, five.ratio);
  EXPECT_LT(five.ratio_high, 0.95);
  EXPECT_EQ(judge(7, timings, 0.15).verdict, ProbeVerdict::OVERLAP);
  // The same samples, fixed seed: the same interval every time.
  EXPECT_EQ(judge(7, timings, 0.05).ratio_low, five.ratio_low);
  // A confidence this low narrows the interval to the medians' neighbours.
  EXPECT_LE(judge(7, timings, 0.05, 0.5).ratio_high, five.ratio_high);
}

TEST(CrossoverSearch, AConfidenceOutsideZeroToOneIsRefused) {
  CrossoverOptions bad;
  bad.confidence = 1.0;
  auto result = find_crossover(bad, [](std::int64_t) -> Result<PathTimings> { return PathTimings{}; });
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message().find("confidence 1"), std::string::npos) << result.error().message();
}

}  // namespace
}  // namespace tunekit::tuning
