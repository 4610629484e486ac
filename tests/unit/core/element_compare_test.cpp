// The one element comparison: which differences it accepts on each scale,
// how NaN and infinities count, the largest error and the first mismatch it
// reports, and the poison it pairs with.
#include "tunekit/core/element_compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tunekit/core/half_precision.hpp"

namespace tunekit::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

ElementComparison compare(const std::vector<float>& expected, const std::vector<float>& actual, double tolerance,
                          ToleranceScale scale = ToleranceScale::AT_LEAST_ONE) {
  return compare_elements(DataType::FLOAT, expected.data(), actual.data(), static_cast<std::int64_t>(expected.size()),
                          tolerance, scale);
}

TEST(ElementCompare, EqualArraysAgreeWithNoError) {
  const std::vector<float> x = {1.5f, -2.0f, 0.25f};
  const ElementComparison c = compare(x, x, 0.0);
  EXPECT_TRUE(c.agrees());
  EXPECT_EQ(c.compared, 3);
  EXPECT_EQ(c.largest_error, 0.0);
  EXPECT_EQ(c.largest_index, -1);
}

TEST(ElementCompare, AtLeastOneIsAbsoluteBelowOneAndRelativeAbove) {
  // 0.01 off an expected 0.001 is 0.01 on the AT_LEAST_ONE scale (absolute)...
  EXPECT_TRUE(compare({0.001f}, {0.011f}, 0.011).agrees());
  EXPECT_FALSE(compare({0.001f}, {0.011f}, 0.009).agrees());
  // ... and 10 on the RELATIVE one.
  EXPECT_FALSE(compare({0.001f}, {0.011f}, 0.011, ToleranceScale::RELATIVE).agrees());
  // 1 off 1000 is 1e-3 relative on both.
  EXPECT_TRUE(compare({1000.0f}, {1001.0f}, 1.01e-3).agrees());
  EXPECT_FALSE(compare({1000.0f}, {1001.0f}, 0.99e-3).agrees());
}

TEST(ElementCompare, ReportsTheFirstMismatchAndTheLargestError) {
  const ElementComparison c = compare({1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, 2.1f, 3.0f, 4.8f}, 0.01);
  EXPECT_FALSE(c.agrees());
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.first_index, 1);
  EXPECT_FLOAT_EQ(static_cast<float>(c.first_actual), 2.1f);
  EXPECT_EQ(c.largest_index, 3);
  EXPECT_NEAR(c.largest_error, 0.2, 1e-6);
  EXPECT_EQ(c.largest_expected, 4.0);
  EXPECT_EQ(describe_mismatch(c, 0.01).rfind("largest error 0.2 (expected 4, got 4.8", 0), 0u)
      << describe_mismatch(c, 0.01);
  EXPECT_NE(describe_mismatch(c, 0.01).find("at element 3), 2 of 4 elements beyond the tolerance 0.01"),
            std::string::npos);
  EXPECT_EQ(describe_mismatch(compare({1.0f}, {1.0f}, 0.0), 0.0), "");
}

TEST(ElementCompare, NanMatchesOnlyNanAndInfinityOnlyItself) {
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compare({nan, inf, -inf}, {nan, inf, -inf}, 0.0).agrees());
  for (const auto& [e, a] : std::vector<std::pair<float, float>>{{1.0f, nan}, {nan, 1.0f}, {inf, 1e30f}, {inf, -inf}, {1.0f, inf}}) {
    const ElementComparison c = compare({e}, {a}, 1e6);
    EXPECT_FALSE(c.agrees()) << e << " vs " << a;
    EXPECT_EQ(c.largest_error, kInf) << e << " vs " << a;
  }
}

TEST(ElementCompare, IntegersMustMatchExactlyOnTheRelativeScaleNearZero) {
  const std::vector<std::int32_t> expected = {0, 5, -3};
  const std::vector<std::int32_t> off = {1, 5, -3};
  EXPECT_FALSE(compare_elements(DataType::INT32, expected.data(), off.data(), 3, 0.5, ToleranceScale::RELATIVE).agrees());
  EXPECT_TRUE(compare_elements(DataType::INT32, expected.data(), expected.data(), 3, 0.0).agrees());
}

TEST(ElementCompare, DecodesHalfPrecisionTypes) {
  const std::vector<std::uint16_t> one = {float_to_float16(1.0f)}, near = {float_to_float16(1.0078125f)};
  EXPECT_TRUE(compare_elements(DataType::FLOAT16, one.data(), near.data(), 1, engine_tolerance(DataType::FLOAT16)).agrees());
  EXPECT_FALSE(compare_elements(DataType::FLOAT16, one.data(), near.data(), 1, 1e-3).agrees());
  const std::vector<std::uint16_t> b_one = {float_to_bfloat16(1.0f)}, b_far = {float_to_bfloat16(1.25f)};
  EXPECT_FALSE(compare_elements(DataType::BFLOAT16, b_one.data(), b_far.data(), 1, engine_tolerance(DataType::BFLOAT16)).agrees());
}

TEST(ElementCompare, PoisonIsNeverMistakenForAResult) {
  std::vector<float> f(5, 1.0f);
  poison_elements(DataType::FLOAT, f.data(), 5);
  for (float x : f) EXPECT_TRUE(std::isnan(x));
  std::vector<double> d(3, 1.0);
  poison_elements(DataType::DOUBLE, d.data(), 3);
  for (double x : d) EXPECT_TRUE(std::isnan(x));
  std::vector<std::uint16_t> h(2, 0);
  poison_elements(DataType::FLOAT16, h.data(), 2);
  EXPECT_TRUE(std::isnan(float16_to_float(h[0])));
  poison_elements(DataType::BFLOAT16, h.data(), 2);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(h[1])));
  std::vector<std::int32_t> i(2, 0);
  poison_elements(DataType::INT32, i.data(), 2);
  EXPECT_EQ(static_cast<std::uint32_t>(i[1]), 0xA5A5A5A5u);
  // A poisoned output compared with a written one fails.
  const std::vector<float> written = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  EXPECT_EQ(compare(written, f, 1e9).mismatches, 5);
}

TEST(ElementCompare, EngineTolerancesGrowAsPrecisionShrinks) {
  EXPECT_LT(engine_tolerance(DataType::DOUBLE), engine_tolerance(DataType::FLOAT));
  EXPECT_LT(engine_tolerance(DataType::FLOAT), engine_tolerance(DataType::FLOAT16));
  EXPECT_LT(engine_tolerance(DataType::FLOAT16), engine_tolerance(DataType::BFLOAT16));
  EXPECT_EQ(engine_tolerance(DataType::INT32), 0.0);
  EXPECT_EQ(engine_tolerance(DataType::BOOL), 0.0);
}

}  // namespace
}  // namespace tunekit::core
