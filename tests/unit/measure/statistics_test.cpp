// Statistics over literal values, edge cases included.
#include "tunekit/measure/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tunekit::measure {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Statistics, DescribesAClassicEvenSample) {
  const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_EQ(minimum(v), 2.0);
  EXPECT_EQ(maximum(v), 9.0);
  EXPECT_EQ(mean(v), 5.0);
  EXPECT_EQ(population_stddev(v), 2.0);  // divides by N; the sample stddev would be 2.138
  EXPECT_EQ(median(v), 4.5);             // midpoint of 4 and 5
  EXPECT_EQ(median_absolute_deviation(v), 0.5);
  EXPECT_DOUBLE_EQ(coefficient_of_variation(v), 0.4);
}

TEST(Statistics, MedianOfAnOddCountIsTheMiddleValueOfTheSortedInput) {
  const std::vector<double> v{3, 1, 2};
  EXPECT_EQ(median(v), 2.0);
  EXPECT_EQ(v, (std::vector<double>{3, 1, 2}));  // the input is not reordered
}

TEST(Statistics, MadIsTheMedianOfDeviationsFromTheMedianUnscaled) {
  const std::vector<double> v{1, 1, 2, 2, 4, 6, 9};  // median 2, deviations 1 1 0 0 2 4 7
  EXPECT_EQ(median(v), 2.0);
  EXPECT_EQ(median_absolute_deviation(v), 1.0);
}

TEST(Statistics, EmptyInputGivesNaNEverywhereAndCountZero) {
  const std::vector<double> v;
  EXPECT_TRUE(std::isnan(minimum(v)));
  EXPECT_TRUE(std::isnan(maximum(v)));
  EXPECT_TRUE(std::isnan(mean(v)));
  EXPECT_TRUE(std::isnan(population_stddev(v)));
  EXPECT_TRUE(std::isnan(median(v)));
  EXPECT_TRUE(std::isnan(median_absolute_deviation(v)));
  EXPECT_TRUE(std::isnan(coefficient_of_variation(v)));
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 0u);
  for (double field : {s.min, s.max, s.mean, s.stddev, s.median, s.mad, s.cov}) EXPECT_TRUE(std::isnan(field));
}

TEST(Statistics, OneValueHasNoSpread) {
  const std::vector<double> v{7.25};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.min, 7.25);
  EXPECT_EQ(s.max, 7.25);
  EXPECT_EQ(s.mean, 7.25);
  EXPECT_EQ(s.median, 7.25);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_EQ(s.cov, 0.0);
}

TEST(Statistics, AllEqualValuesGiveThatValueAndExactlyZeroSpread) {
  // 0.1 + 0.1 + 0.1 rounds above 0.3, so a plain sum / N would drift.
  const std::vector<double> v{0.1, 0.1, 0.1};
  EXPECT_EQ(mean(v), 0.1);
  EXPECT_EQ(population_stddev(v), 0.0);
  EXPECT_EQ(median_absolute_deviation(v), 0.0);
  EXPECT_EQ(coefficient_of_variation(v), 0.0);
}

TEST(Statistics, ZeroMeanGivesZeroCovWhenAllValuesAreZero) {
  const std::vector<double> v{0, 0, 0};
  EXPECT_EQ(coefficient_of_variation(v), 0.0);
}

TEST(Statistics, ZeroMeanWithSpreadGivesInfiniteCov) {
  const std::vector<double> v{-1, 1};
  EXPECT_EQ(mean(v), 0.0);
  EXPECT_EQ(population_stddev(v), 1.0);
  EXPECT_EQ(coefficient_of_variation(v), kInf);
}

TEST(Statistics, NegativeMeanUsesItsMagnitudeForCov) {
  const std::vector<double> v{-2, -4, -4, -4, -5, -5, -7, -9};
  EXPECT_EQ(mean(v), -5.0);
  EXPECT_DOUBLE_EQ(coefficient_of_variation(v), 0.4);
}

TEST(Statistics, EvenMedianDoesNotOverflowForHugeValues) {
  const double big = std::numeric_limits<double>::max();
  const std::vector<double> v{big, big};
  EXPECT_EQ(median(v), big);
}

TEST(Statistics, AnyNaNMakesEveryStatisticNaN) {
  const std::vector<double> v{1, kNaN, 3};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 3u);
  for (double field : {s.min, s.max, s.mean, s.stddev, s.median, s.mad, s.cov}) EXPECT_TRUE(std::isnan(field));
}

TEST(Statistics, InfinityFollowsIeeeArithmetic) {
  const std::vector<double> v{1, kInf};
  EXPECT_EQ(maximum(v), kInf);
  EXPECT_EQ(mean(v), kInf);
  EXPECT_TRUE(std::isnan(population_stddev(v)));  // inf - inf
}

TEST(Statistics, SummarizeMatchesTheSingleFunctions) {
  const std::vector<double> v{1, 2, 1, 1, 1};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 2.0);
  EXPECT_DOUBLE_EQ(s.mean, 1.2);
  EXPECT_DOUBLE_EQ(s.stddev, 0.4);  // squares 0.04 0.64 0.04 0.04 0.04 sum to 0.8, / 5
  EXPECT_EQ(s.median, 1.0);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_DOUBLE_EQ(s.cov, 0.4 / 1.2);
}

}  // namespace
}  // namespace tunekit::measure
