// Checked int64 arithmetic: exact results where they fit, nullopt one step
// past either end of the range.
#include "tunekit/core/checked_math.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace tunekit::core {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(CheckedMath, MultiplyIsExactUpToTheLimitAndNulloptPastIt) {
  EXPECT_EQ(checked_mul(6, 7), 42);
  EXPECT_EQ(checked_mul(-3, 4), -12);
  EXPECT_EQ(checked_mul(kMax, 1), kMax);
  EXPECT_EQ(checked_mul(std::int64_t{1} << 31, std::int64_t{1} << 31), std::int64_t{1} << 62);
  EXPECT_EQ(checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 32), std::nullopt);
  EXPECT_EQ(checked_mul(std::int64_t{1} << 62, 2), std::nullopt);
  EXPECT_EQ(checked_mul(kMax, 2), std::nullopt);
  EXPECT_EQ(checked_mul(kMin, -1), std::nullopt);
}

TEST(CheckedMath, AddAndSubtractAreExactUpToTheLimitAndNulloptPastIt) {
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_EQ(checked_add(kMax, 1), std::nullopt);
  EXPECT_EQ(checked_add(kMin, -1), std::nullopt);
  EXPECT_EQ(checked_sub(kMin + 1, 1), kMin);
  EXPECT_EQ(checked_sub(kMin, 1), std::nullopt);
  EXPECT_EQ(checked_sub(0, kMin), std::nullopt);
}

}  // namespace
}  // namespace tunekit::core
