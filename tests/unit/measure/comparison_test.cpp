// The one comparison: verdicts on scripted and random timings, the interval's
// coverage over repeated experiments, reproducibility and bad input.
#include "tunekit/measure/comparison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tunekit::measure {
namespace {

// Timings around `typical` ms with multiplicative noise of `spread` (the
// shape of real run-to-run variation: never negative, skewed to the slow side).
std::vector<double> timings(double typical, double spread, int count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> noise(0.0, spread);
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) samples.push_back(typical * noise(rng));
  return samples;
}

TEST(Comparison, ClearlyFasterAndSlower) {
  const auto fast = timings(1.0, 0.02, 20, 1);
  const auto slow = timings(1.2, 0.02, 20, 2);
  const Comparison forward = compare_times(fast, slow);
  EXPECT_EQ(forward.verdict, Verdict::FASTER);
  EXPECT_NEAR(forward.ratio, 1.0 / 1.2, 0.02);
  EXPECT_LE(forward.ratio_low, forward.ratio);
  EXPECT_GE(forward.ratio_high, forward.ratio);
  EXPECT_EQ(forward.a_samples, 20u);
  EXPECT_EQ(forward.b_samples, 20u);

  const Comparison backward = compare_times(slow, fast);
  EXPECT_EQ(backward.verdict, Verdict::SLOWER);
  EXPECT_NEAR(backward.ratio, 1.0 / forward.ratio, 1e-12);
}

TEST(Comparison, SameDistributionIsATieOnceThereAreEnoughSamples) {
  const Comparison many = compare_times(timings(1.0, 0.01, 200, 3), timings(1.0, 0.01, 200, 4));
  EXPECT_EQ(many.verdict, Verdict::TIE) << describe(many, {});
  EXPECT_LE(many.ratio_low, 1.0);
  EXPECT_GE(many.ratio_high, 1.0);
  // Three noisy samples cannot show equality within 2%.
  const Comparison few = compare_times(timings(1.0, 0.05, 3, 5), timings(1.0, 0.05, 3, 6));
  EXPECT_EQ(few.verdict, Verdict::UNDECIDED) << describe(few, {});
}

TEST(Comparison, ACertainDifferenceInsideTheBandIsATieAndOutsideAZeroBandIsNot) {
  const auto a = timings(1.00, 0.001, 30, 7);
  const auto b = timings(1.01, 0.001, 30, 8);
  EXPECT_EQ(compare_times(a, b).verdict, Verdict::TIE);
  ComparisonConfig strict;
  strict.tie_band = 0.0;
  EXPECT_EQ(compare_times(a, b, strict).verdict, Verdict::FASTER);
  EXPECT_EQ(compare_times(b, a, strict).verdict, Verdict::SLOWER);
}

TEST(Comparison, NoisySamplesAtTheEdgeOfTheBandAreUndecided) {
  // 3% apart with 5% noise and ten samples each: neither inside nor outside the band.
  const Comparison c = compare_times(timings(1.00, 0.05, 10, 9), timings(1.03, 0.05, 10, 10));
  EXPECT_EQ(c.verdict, Verdict::UNDECIDED) << describe(c, {});
  EXPECT_LT(c.ratio_low, 1.0 / 1.02);
  EXPECT_GT(c.ratio_high, 1.0 / 1.02);
}

TEST(Comparison, IntervalCoversTheTrueRatioAtAboutItsConfidence) {
  // 400 experiments with a known ratio of medians (1 / 1.1): a 95% interval
  // must contain it in roughly 95% of them. A percentile bootstrap of a
  // median at 25 samples is a little conservative or liberal, never far off.
  const double truth = 1.0 / 1.1;
  int covered = 0;
  const int experiments = 400;
  for (int e = 0; e < experiments; ++e) {
    const auto a = timings(1.0, 0.05, 25, 1000 + 2 * e);
    const auto b = timings(1.1, 0.05, 25, 1001 + 2 * e);
    const Comparison c = compare_times(a, b);
    if (c.ratio_low <= truth && truth <= c.ratio_high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / experiments;
  EXPECT_GT(coverage, 0.90);
  EXPECT_LT(coverage, 0.995);
}

TEST(Comparison, TheSameSamplesGiveTheSameVerdictAndInterval) {
  const auto a = timings(1.0, 0.03, 15, 11);
  const auto b = timings(1.04, 0.03, 15, 12);
  const Comparison first = compare_times(a, b);
  const Comparison second = compare_times(a, b);
  EXPECT_EQ(first.verdict, second.verdict);
  EXPECT_EQ(first.ratio_low, second.ratio_low);
  EXPECT_EQ(first.ratio_high, second.ratio_high);
  ComparisonConfig other_seed;
  other_seed.seed = 99;
  const Comparison reseeded = compare_times(a, b, other_seed);
  EXPECT_EQ(reseeded.ratio, first.ratio);
  EXPECT_NEAR(reseeded.ratio_low, first.ratio_low, 0.02);
}

TEST(Comparison, ConstantSamplesGiveAnExactRatio) {
  const std::vector<double> a(5, 2.0), b(5, 4.0);
  const Comparison c = compare_times(a, b);
  EXPECT_EQ(c.ratio, 0.5);
  EXPECT_EQ(c.ratio_low, 0.5);
  EXPECT_EQ(c.ratio_high, 0.5);
  EXPECT_EQ(c.verdict, Verdict::FASTER);
}

TEST(Comparison, UnusableSamplesAreUndecidedWithNaNFigures) {
  const std::vector<double> good{1.0, 1.1, 0.9};
  const std::vector<std::vector<double>> bad{
      {}, {1.0}, {1.0, 0.0}, {1.0, -1.0}, {1.0, std::nan("")}, {1.0, INFINITY}};
  for (const auto& samples : bad) {
    for (const Comparison& c : {compare_times(samples, good), compare_times(good, samples)}) {
      EXPECT_EQ(c.verdict, Verdict::UNDECIDED);
      EXPECT_TRUE(std::isnan(c.ratio));
      EXPECT_TRUE(std::isnan(c.ratio_low));
      EXPECT_TRUE(std::isnan(c.ratio_high));
    }
  }
}

TEST(Comparison, ValidateNamesTheFieldAndValue) {
  ComparisonConfig c;
  EXPECT_FALSE(validate(c).is_bad());
  c.confidence = 1.0;
  EXPECT_NE(validate(c).message().find("confidence must be strictly between 0 and 1, got 1"), std::string::npos);
  c = {};
  c.confidence = std::nan("");
  EXPECT_TRUE(validate(c).is_bad());
  c = {};
  c.tie_band = -0.01;
  EXPECT_NE(validate(c).message().find("tie_band must be at least 0 and below 1, got -0.01"), std::string::npos);
  c = {};
  c.resamples = 10;
  EXPECT_NE(validate(c).message().find("resamples must be at least 100, got 10"), std::string::npos);
  // An invalid config decides nothing.
  EXPECT_EQ(compare_times(std::vector<double>{1, 1.1}, std::vector<double>{2, 2.1}, c).verdict, Verdict::UNDECIDED);
}

TEST(Comparison, DescribeShowsTheFigures) {
  const std::vector<double> a(5, 2.0), b(5, 4.0);
  EXPECT_EQ(describe(compare_times(a, b), {}), "0.500 [0.500, 0.500] at 95%: faster (tie band 2%)");
  EXPECT_EQ(to_string(Verdict::TIE), "tie");
  EXPECT_EQ(to_string(Verdict::UNDECIDED), "undecided");
}

}  // namespace
}  // namespace tunekit::measure
