// Cartesian products and sweep expansion limits.
#include "tunekit/graph/engine_sweep.hpp"

#include <gtest/gtest.h>

namespace tunekit::graph {
namespace {

std::vector<KnobValue> ints(int n) {
  std::vector<KnobValue> values;
  for (int i = 0; i < n; ++i) values.emplace_back(i);
  return values;
}

TEST(CartesianProduct, NoAxesGiveOneEmptyCombination) {
  EXPECT_EQ(cartesian_product_size({}), 1u);
  const auto product = cartesian_product({});
  ASSERT_EQ(product.size(), 1u);
  EXPECT_TRUE(product[0].empty());
}

TEST(CartesianProduct, OneAxisGivesOneCombinationPerValue) {
  const auto product = cartesian_product({{"k", {1, 2, 4}}});
  ASSERT_EQ(product.size(), 3u);
  EXPECT_EQ(product[2], (std::vector<KnobSetting>{{"k", 4}}));
}

TEST(CartesianProduct, TwoAxesVaryTheLastFastest) {
  const auto product = cartesian_product({{"split_k", {1, 2, 4}}, {"tile", {0, 1}}});
  ASSERT_EQ(product.size(), 6u);
  const std::vector<std::pair<int, int>> expected{{1, 0}, {1, 1}, {2, 0}, {2, 1}, {4, 0}, {4, 1}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(product[i], (std::vector<KnobSetting>{{"split_k", expected[i].first}, {"tile", expected[i].second}}))
        << "combination " << i;
  }
}

TEST(CartesianProduct, ThreeAxesAndAnEmptyAxis) {
  EXPECT_EQ(cartesian_product({{"a", ints(2)}, {"b", ints(3)}, {"c", ints(4)}}).size(), 24u);
  EXPECT_EQ(cartesian_product_size({{"a", ints(2)}, {"b", {}}}), 0u);
  EXPECT_TRUE(cartesian_product({{"a", ints(2)}, {"b", {}}}).empty());
}

TEST(CartesianProduct, SizeSaturatesInsteadOfOverflowing) {
  std::vector<KnobSweepAxis> axes(8, KnobSweepAxis{"k", ints(1 << 10)});
  EXPECT_EQ(cartesian_product_size(axes), std::numeric_limits<std::uint64_t>::max());
}

TEST(EngineSweep, FixedSettingsAreMergedIntoEveryCombination) {
  EngineSweepSpec spec{42, {{"SPLIT_K", {1, 2, 4}}, {"TILE_SIZE", {0, 1}}}, {{"REDUCTION_MODE", 1}}};
  auto expansion = expand_sweep(spec);
  ASSERT_TRUE(expansion.ok());
  ASSERT_EQ(expansion->combinations.size(), 6u);
  EXPECT_EQ(expansion->combinations[3],
            (std::vector<KnobSetting>{{"SPLIT_K", 2}, {"TILE_SIZE", 1}, {"REDUCTION_MODE", 1}}));
  EXPECT_TRUE(expansion->warnings.empty());
}

TEST(EngineSweep, BenchmarkingKnobAndEmptyAxesAreDroppedWithWarnings) {
  EngineSweepSpec spec{3, {{"global.benchmarking", {0, 1}}, {"tile", {}}, {"k", {1, 2}}}, {{"global.benchmarking", 1}}};
  auto expansion = expand_sweep(spec);
  ASSERT_TRUE(expansion.ok());
  ASSERT_EQ(expansion->combinations.size(), 2u);
  EXPECT_EQ(expansion->combinations[0], (std::vector<KnobSetting>{{"k", 1}}));
  ASSERT_EQ(expansion->warnings.size(), 3u);
  EXPECT_EQ(expansion->warnings[0],
            "engine id 3: sweep axis 'global.benchmarking' stripped (autotune() manages it in EXHAUSTIVE mode)");
  EXPECT_EQ(expansion->warnings[1],
            "engine id 3: sweep axis 'tile' has no values and is dropped (the knob keeps its default)");
  EXPECT_EQ(expansion->warnings[2],
            "engine id 3: fixed setting 'global.benchmarking' stripped (autotune() manages it in EXHAUSTIVE mode)");
}

TEST(EngineSweep, AllAxesStrippedGivesOneSpecOfFixedSettings) {
  auto expansion = expand_sweep(EngineSweepSpec{3, {{"tile", {}}}, {{"k", 2}}});
  ASSERT_TRUE(expansion.ok());
  ASSERT_EQ(expansion->combinations.size(), 1u);
  EXPECT_EQ(expansion->combinations[0], (std::vector<KnobSetting>{{"k", 2}}));
}

TEST(EngineSweep, WarnsAboveOneThousandAndFailsAboveTenThousand) {
  auto at_limit = expand_sweep(EngineSweepSpec{1, {{"a", ints(10)}, {"b", ints(100)}}, {}});
  ASSERT_TRUE(at_limit.ok());
  EXPECT_EQ(at_limit->combinations.size(), 1000u);
  EXPECT_TRUE(at_limit->warnings.empty());

  auto above = expand_sweep(EngineSweepSpec{1, {{"a", ints(11)}, {"b", ints(100)}}, {}});
  ASSERT_TRUE(above.ok());
  EXPECT_EQ(above->combinations.size(), 1100u);
  ASSERT_EQ(above->warnings.size(), 1u);
  EXPECT_EQ(above->warnings[0], "engine id 1: the sweep produces 1100 plan specs (more than 1000)");

  auto ten_thousand = expand_sweep(EngineSweepSpec{1, {{"a", ints(100)}, {"b", ints(100)}}, {}});
  ASSERT_TRUE(ten_thousand.ok());
  EXPECT_EQ(ten_thousand->combinations.size(), 10000u);

  auto too_many = expand_sweep(EngineSweepSpec{1, {{"a", ints(101)}, {"b", ints(100)}}, {}});
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().message(), "engine id 1: the sweep produces 10100 plan specs, more than the limit of 10000");
}

TEST(EngineSweep, AKnobSweptTwiceOrSweptAndFixedIsAnError) {
  EXPECT_EQ(expand_sweep(EngineSweepSpec{5, {{"a", {1}}, {"a", {2}}}, {}}).error().message(),
            "engine id 5: knob 'a' is swept by more than one axis");
  EXPECT_EQ(expand_sweep(EngineSweepSpec{5, {{"a", {1}}}, {{"a", 2}}}).error().message(),
            "engine id 5: knob 'a' is both swept and fixed");
}

}  // namespace
}  // namespace tunekit::graph
