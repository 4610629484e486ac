#include "tunekit/core/value.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace tunekit::core {
namespace {

TEST(Value, IntegersOfAnyWidthBecomeInt64) {
  EXPECT_EQ(Value(7).type(), ValueType::INT64);
  EXPECT_EQ(Value(std::int64_t{1} << 40).as_int(), std::int64_t{1} << 40);
  EXPECT_EQ(Value(std::size_t{64}).as_int(), 64);
  EXPECT_EQ(Value(std::uint32_t{3}).type(), ValueType::INT64);
}

TEST(Value, StringLiteralsAreStringsNotBools) {
  Value v("blocked");
  EXPECT_EQ(v.type(), ValueType::STRING);
  ASSERT_NE(v.as_string(), nullptr);
  EXPECT_EQ(*v.as_string(), "blocked");
  EXPECT_FALSE(v.as_bool().has_value());
}

TEST(Value, TypesNeverConvert) {
  Value d(8.0);
  EXPECT_TRUE(d.is_double());
  EXPECT_FALSE(d.as_int().has_value());
  Value i(8);
  EXPECT_FALSE(i.as_double().has_value());
  EXPECT_NE(Value(1), Value(true));
  EXPECT_NE(Value(1), Value(1.0));
  EXPECT_EQ(Value(false).as_bool(), false);
}

TEST(Value, TextForm) {
  EXPECT_EQ(Value(-42).to_text(), "-42");
  EXPECT_EQ(Value(0.5).to_text(), "0.5");
  EXPECT_EQ(Value(2.0).to_text(), "2.0");
  EXPECT_EQ(Value(true).to_text(), "true");
  EXPECT_EQ(Value("x").to_text(), "\"x\"");
}

TEST(ValueType, NamesRoundTrip) {
  for (ValueType type : {ValueType::INT64, ValueType::DOUBLE, ValueType::BOOL, ValueType::STRING}) {
    EXPECT_EQ(parse_value_type(to_string(type)), type);
  }
  EXPECT_FALSE(parse_value_type("float").has_value());
}

}  // namespace
}  // namespace tunekit::core
