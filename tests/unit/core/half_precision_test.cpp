#include "tunekit/core/half_precision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tunekit::core {
namespace {

TEST(Float16, KnownBitPatterns) {
  EXPECT_EQ(float_to_float16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_float16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_float16(65504.0f), 0x7BFF);  // largest finite
  EXPECT_EQ(float_to_float16(65520.0f), 0x7C00);  // rounds to infinity
  EXPECT_EQ(float_to_float16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_float16(std::ldexp(1.0f, -26)), 0x0000);  // below half of it
  EXPECT_EQ(float_to_float16(0.1f), 0x2E66);
  EXPECT_EQ(float_to_float16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_float16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(float16_to_float(float_to_float16(std::nanf("")))));
}

TEST(Float16, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even 1.
  EXPECT_EQ(float_to_float16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties to even 0x3C02.
  EXPECT_EQ(float_to_float16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
}

TEST(Float16, EveryFiniteHalfRoundTrips) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    if (((half >> 10) & 0x1F) == 0x1F) continue;  // infinities and NaNs
    ASSERT_EQ(float_to_float16(float16_to_float(half)), half) << std::hex << bits;
  }
}

TEST(BFloat16, RoundTripAndRounding) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(float_to_bfloat16(-3.0f), 0xC040);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    if (((b >> 7) & 0xFF) == 0xFF) continue;
    ASSERT_EQ(float_to_bfloat16(bfloat16_to_float(b)), b);
  }
}

}  // namespace
}  // namespace tunekit::core
