#include "tunekit/core/result.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tunekit::core {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return Error(ErrorCode::INVALID_VALUE, "value " + std::to_string(v) + " must be positive");
  return v;
}

TEST(Result, HoldsAValue) {
  Result<int> r = parse_positive(3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  EXPECT_TRUE(r.error().is_good());
}

TEST(Result, HoldsAnError) {
  Result<int> r = parse_positive(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(r.error().message(), "value -1 must be positive");
}

TEST(Result, MovesOutMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(9);
  ASSERT_TRUE(r);
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 9);
}

}  // namespace
}  // namespace tunekit::core
