// The sizes, shape families, timing order and verdict rule of
// bench_calibrated_vs_default, with exact values.
#include "calibrated_vs_default_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace tunekit::bench {
namespace {

using Sizes = std::vector<std::int64_t>;

TEST(SizesBetween, GivesBothEndsInsideAndTheGeometricMiddle) {
  EXPECT_EQ(sizes_between(32, 8), (Sizes{8, 16, 31}));
  EXPECT_EQ(sizes_between(8, 32), (Sizes{8, 16, 31}));
  EXPECT_EQ(sizes_between(1048576, 65536), (Sizes{65536, 262144, 1048575}));
}

TEST(SizesBetween, CollapsesANarrowRangeAndIsEmptyForEqualOrInvalidThresholds) {
  EXPECT_EQ(sizes_between(5, 6), (Sizes{5}));
  EXPECT_EQ(sizes_between(5, 7), (Sizes{5, 6}));
  EXPECT_EQ(sizes_between(7, 7), Sizes{});
  EXPECT_EQ(sizes_between(0, 4), Sizes{});
}

TEST(SizesBetween, SkinnyRowsUseTheLimitPlusOne) {
  // m <= limit is m < limit + 1: limits 16 and 4 differ for M in [5, 16].
  EXPECT_EQ(sizes_between(16 + 1, 4 + 1), (Sizes{5, 9, 16}));
  EXPECT_EQ(agreeing_size(16 + 1, 4 + 1), 4);
}

TEST(AgreeingSize, IsBelowBothThresholdsOrAtTheHigherOneWhenNothingIsBelow) {
  EXPECT_EQ(agreeing_size(32, 8), 7);
  EXPECT_EQ(agreeing_size(1, 32), 32);
  EXPECT_EQ(agreeing_size(7, 7), 0);
  EXPECT_EQ(agreeing_size(0, 7), 0);
}

TEST(EdgesBetween, GivesCubeEdgesWhoseProductLiesBetweenTwoGemmParallelThresholds) {
  // 2^21 and 2^23 multiply-adds: 128^3 = 2^21, 161^3 = 4173281, 203^3 = 8365427.
  EXPECT_EQ(edges_between(std::int64_t{1} << 23, std::int64_t{1} << 21, 3), (Sizes{128, 161, 203}));
  EXPECT_EQ(agreeing_edge(std::int64_t{1} << 23, std::int64_t{1} << 21, 3), 127);
}

TEST(EdgesBetween, GivesSquareEdgesOfBBetweenTwoPackingThresholds) {
  EXPECT_EQ(edges_between(4096, 16384, 2), (Sizes{64, 91, 127}));
  EXPECT_EQ(agreeing_edge(4096, 16384, 2), 63);
}

TEST(EdgesBetween, IsEmptyWhenNoPowerLiesBetween) {
  EXPECT_EQ(edges_between(10, 12, 3), Sizes{});
  EXPECT_EQ(edges_between(64, 64, 3), Sizes{});
  EXPECT_EQ(agreeing_edge(64, 64, 3), 0);
  EXPECT_EQ(agreeing_edge(1, 64, 3), 0);
}

TEST(Interleave, AlternatesWhichConfigurationIsTimedFirst) {
  std::string order;
  double next = 1.0;
  auto time_default = [&]() -> Result<double> { order += 'D'; return next++; };
  auto time_calibrated = [&]() -> Result<double> { order += 'C'; return next++; };
  Result<PairedSamples> samples = interleave(time_default, time_calibrated, 3);
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  EXPECT_EQ(order, "DCCDDC");
  EXPECT_EQ(samples->default_ms, (std::vector<double>{1, 4, 5}));
  EXPECT_EQ(samples->calibrated_ms, (std::vector<double>{2, 3, 6}));
}

TEST(Interleave, StopsAtTheFirstErrorAndReturnsIt) {
  int calls = 0;
  auto time_default = [&]() -> Result<double> { ++calls; return 1.0; };
  auto time_calibrated = [&]() -> Result<double> {
    // The third call: repetition 1 times the calibrated configuration first.
    if (++calls == 3) return Error(ErrorCode::INVALID_VALUE, "run 3 failed");
    return 2.0;
  };
  Result<PairedSamples> samples = interleave(time_default, time_calibrated, 5);
  ASSERT_FALSE(samples.ok());
  EXPECT_EQ(samples.error().message(), "run 3 failed");
  EXPECT_EQ(calls, 3);
}

TEST(Interleave, RejectsZeroRepetitionsWithoutTiming) {
  int calls = 0;
  auto time = [&]() -> Result<double> { ++calls; return 1.0; };
  Result<PairedSamples> samples = interleave(time, time, 0);
  ASSERT_FALSE(samples.ok());
  EXPECT_EQ(samples.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(samples.error().message(), "interleave: repetitions must be at least 1, got 0");
  EXPECT_EQ(calls, 0);
}

PairedSamples pairs_with_ratios(const std::vector<double>& ratios) {
  PairedSamples out;
  for (double r : ratios) {
    out.default_ms.push_back(2.0 * r);
    out.calibrated_ms.push_back(2.0);
  }
  return out;
}

TEST(ComparePairs, TheRatioIsTheMedianPairRatioAndTheIntervalItsInnerOrderStatistics) {
  const PairedComparison c = compare_pairs(pairs_with_ratios({1.10, 0.90, 1.02, 0.97, 1.30, 0.70, 1.00}));
  EXPECT_DOUBLE_EQ(c.ratio, 1.00);
  EXPECT_DOUBLE_EQ(c.low, 0.90);
  EXPECT_DOUBLE_EQ(c.high, 1.10);
  EXPECT_EQ(c.verdict, Verdict::SAME);
  // Fewer than five pairs: the extremes.
  const PairedComparison few = compare_pairs(pairs_with_ratios({0.80, 0.90, 0.85}));
  EXPECT_DOUBLE_EQ(few.low, 0.80);
  EXPECT_DOUBLE_EQ(few.high, 0.90);
}

TEST(ComparePairs, IsSlowerOnlyWhenAllPairsButOneLostBeyondTheMargin) {
  // Six of seven pairs lost by more than 5%: SLOWER.
  EXPECT_EQ(compare_pairs(pairs_with_ratios({0.90, 0.91, 0.93, 0.92, 0.94, 1.20, 0.89})).verdict, Verdict::SLOWER);
  // Two pairs within the margin: not proven slower, although the median is 0.92.
  EXPECT_EQ(compare_pairs(pairs_with_ratios({0.90, 0.91, 0.92, 0.92, 0.96, 1.20, 0.89})).verdict, Verdict::SAME);
  // One slow pair among equal ones (a stall) decides nothing.
  EXPECT_EQ(compare_pairs(pairs_with_ratios({1.0, 1.01, 0.99, 0.40, 1.0, 1.02, 0.98})).verdict, Verdict::SAME);
  EXPECT_EQ(compare_pairs(pairs_with_ratios({1.10, 1.08, 1.20, 1.07, 1.06, 0.50, 1.30})).verdict, Verdict::FASTER);
  EXPECT_EQ(compare_pairs(pairs_with_ratios({1.10, 1.08, 1.20, 1.04, 1.06, 0.50, 1.30})).verdict, Verdict::SAME);
  // A different margin moves the bounds.
  EXPECT_EQ(compare_pairs(pairs_with_ratios({0.96, 0.96, 0.97, 0.96, 0.96, 0.96, 0.96}), 0.02).verdict, Verdict::SLOWER);
}

TEST(ComparePairs, NothingOrAMismatchOrANaNIsSlower) {
  EXPECT_EQ(compare_pairs(PairedSamples{}).verdict, Verdict::SLOWER);
  EXPECT_EQ(compare_pairs(PairedSamples{{1, 2}, {1}}).verdict, Verdict::SLOWER);
  EXPECT_EQ(compare_pairs(PairedSamples{{1, std::nan(""), 1}, {1, 1, 1}}).verdict, Verdict::SLOWER);
  EXPECT_EQ(to_string(Verdict::SLOWER), "SLOWER");
  EXPECT_EQ(to_string(Verdict::FASTER), "faster");
  EXPECT_EQ(to_string(Verdict::SAME), "same (noise)");
}

TEST(ConfirmSlower, SlowerStandsOnlyWhenTheRecheckIsSlowerToo) {
  const PairedComparison slower = compare_pairs(pairs_with_ratios({0.90, 0.91, 0.93, 0.92, 0.94, 1.20, 0.89}));
  const PairedComparison same = compare_pairs(pairs_with_ratios({1.0, 1.01, 0.99, 0.97, 1.0, 1.02, 0.98}));
  const PairedComparison faster = compare_pairs(pairs_with_ratios({1.10, 1.08, 1.20, 1.07, 1.06, 0.50, 1.30}));
  ASSERT_EQ(slower.verdict, Verdict::SLOWER);
  EXPECT_EQ(confirm_slower(slower, slower), Verdict::SLOWER);
  EXPECT_EQ(confirm_slower(slower, same), Verdict::SAME);
  EXPECT_EQ(confirm_slower(slower, faster), Verdict::SAME) << "two sets that disagree prove nothing";
  EXPECT_EQ(confirm_slower(faster, slower), Verdict::FASTER) << "only a SLOWER verdict is rechecked";
  EXPECT_EQ(confirm_slower(same, slower), Verdict::SAME);
}

}  // namespace
}  // namespace tunekit::bench
