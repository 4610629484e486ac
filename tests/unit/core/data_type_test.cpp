#include "tunekit/core/data_type.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tunekit::core {
namespace {

TEST(DataType, SizesMatchTheElementWidths) {
  EXPECT_EQ(size_of(DataType::FLOAT), 4u);
  EXPECT_EQ(size_of(DataType::DOUBLE), 8u);
  EXPECT_EQ(size_of(DataType::FLOAT16), 2u);
  EXPECT_EQ(size_of(DataType::BFLOAT16), 2u);
  EXPECT_EQ(size_of(DataType::INT8), 1u);
  EXPECT_EQ(size_of(DataType::UINT8), 1u);
  EXPECT_EQ(size_of(DataType::INT32), 4u);
  EXPECT_EQ(size_of(DataType::INT64), 8u);
  EXPECT_EQ(size_of(DataType::BOOL), 1u);
}

TEST(DataType, EveryTypeHasAUniqueNameThatParsesBack) {
  std::set<std::string> names;
  ASSERT_EQ(all_data_types().size(), 9u);
  for (DataType type : all_data_types()) {
    std::string name(to_string(type));
    EXPECT_TRUE(names.insert(name).second) << name;
    auto parsed = parse_data_type(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, type);
  }
}

TEST(DataType, ParseAcceptsCaseAndAliasesAndRejectsUnknown) {
  EXPECT_EQ(parse_data_type("FLOAT"), DataType::FLOAT);
  EXPECT_EQ(parse_data_type("BFloat16"), DataType::BFLOAT16);
  EXPECT_EQ(parse_data_type("fp32"), DataType::FLOAT);
  EXPECT_EQ(parse_data_type("half"), DataType::FLOAT16);
  EXPECT_EQ(parse_data_type("bf16"), DataType::BFLOAT16);
  EXPECT_EQ(parse_data_type("float64"), DataType::DOUBLE);
  EXPECT_FALSE(parse_data_type("float8").has_value());
  EXPECT_FALSE(parse_data_type("").has_value());
  EXPECT_FALSE(parse_data_type("int").has_value());
}

TEST(DataType, FloatingPointClassification) {
  EXPECT_TRUE(is_floating_point(DataType::FLOAT16));
  EXPECT_TRUE(is_floating_point(DataType::BFLOAT16));
  EXPECT_FALSE(is_floating_point(DataType::INT8));
  EXPECT_FALSE(is_floating_point(DataType::BOOL));
}

}  // namespace
}  // namespace tunekit::core
