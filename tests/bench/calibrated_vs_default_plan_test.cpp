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

TEST(RelativeSpread, IsTheMedianAbsoluteDeviationOverTheMedian) {
  const std::vector<double> samples = {10, 11, 12, 9, 10};
  EXPECT_DOUBLE_EQ(relative_spread(samples), 0.1);
  EXPECT_EQ(relative_spread(std::vector<double>{4, 4, 4}), 0.0);
  EXPECT_TRUE(std::isnan(relative_spread(std::vector<double>{})));
}

TEST(Verdict, IsSlowerOnlyBeyondFivePercentOrTheNoiseWhicheverIsLarger) {
  EXPECT_EQ(verdict(0.96, 0.01), Verdict::SAME);
  EXPECT_EQ(verdict(0.94, 0.01), Verdict::SLOWER);
  EXPECT_EQ(verdict(0.94, 0.08), Verdict::SAME);
  EXPECT_EQ(verdict(0.91, 0.08), Verdict::SLOWER);
  EXPECT_EQ(verdict(1.06, 0.01), Verdict::FASTER);
  EXPECT_EQ(verdict(1.06, 0.08), Verdict::SAME);
  EXPECT_EQ(verdict(0.94, std::nan("")), Verdict::SLOWER);
  EXPECT_EQ(verdict(std::nan(""), 0.01), Verdict::SLOWER);
  EXPECT_EQ(to_string(Verdict::SLOWER), "SLOWER");
  EXPECT_EQ(to_string(Verdict::FASTER), "faster");
  EXPECT_EQ(to_string(Verdict::SAME), "same (noise)");
}

}  // namespace
}  // namespace tunekit::bench
