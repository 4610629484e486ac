// The values a sweep tries for one knob: every value of a small INT grid,
// the documented sample of a large one (powers of two rounded onto the step
// grid), allowed values, the default alone otherwise, and the text that says
// what was left out.
#include "tunekit/graph/knob_sweep_values.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace tunekit::graph {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Knob int_knob(std::int64_t default_value, std::optional<std::int64_t> min, std::optional<std::int64_t> max,
              std::optional<std::int64_t> step = std::nullopt) {
  Knob k;
  k.id = "tile";
  k.type = KnobType::INT;
  k.default_value = default_value;
  if (min) k.min_value = *min;
  if (max) k.max_value = *max;
  k.step = step;
  EXPECT_TRUE(validate_knob(k).is_good()) << validate_knob(k).message();
  return k;
}

std::vector<KnobValue> ints(std::initializer_list<std::int64_t> values) {
  return std::vector<KnobValue>(values.begin(), values.end());
}

TEST(KnobSweepValues, AGridOfFourValuesIsSweptWhole) {
  const KnobSweepValues sweep = knob_sweep_values(int_knob(32, 16, 64, 16));
  EXPECT_EQ(sweep.knob_id, "tile");
  EXPECT_EQ(sweep.rule, KnobSweepRule::EVERY_VALUE);
  EXPECT_EQ(sweep.values, ints({16, 32, 48, 64}));
  EXPECT_EQ(sweep.default_value, KnobValue(32));
  EXPECT_EQ(sweep.valid_count, 4u);
  EXPECT_EQ(sweep.step, 16);
  EXPECT_EQ(sweep.left_out_count(), 0u);
  EXPECT_TRUE(sweep.left_out.empty());
  EXPECT_EQ(describe_knob_sweep(sweep), "every value (16, 32, 48, 64)");
}

TEST(KnobSweepValues, SixteenValuesAreTheLimitOfAWholeSweep) {
  static_assert(kKnobSweepAllValuesLimit == 16);
  const KnobSweepValues sweep = knob_sweep_values(int_knob(4, 1, 16));
  EXPECT_EQ(sweep.rule, KnobSweepRule::EVERY_VALUE);
  EXPECT_EQ(sweep.values, ints({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(sweep.step, 1);
  EXPECT_EQ(knob_sweep_values(int_knob(4, 1, 16, 0)).values.size(), 16u) << "step 0 is step 1";
}

TEST(KnobSweepValues, SeventeenValuesAreSampled) {
  const KnobSweepValues sweep = knob_sweep_values(int_knob(1, 1, 17));
  EXPECT_EQ(sweep.rule, KnobSweepRule::SAMPLED);
  EXPECT_EQ(sweep.values, ints({1, 2, 4, 8, 16, 17}));
  EXPECT_EQ(sweep.valid_count, 17u);
  EXPECT_EQ(sweep.left_out_count(), 11u);
  EXPECT_EQ(sweep.left_out, (std::vector<KnobValueRun>{{3, 3}, {5, 7}, {9, 15}}));
  EXPECT_EQ(describe_knob_sweep(sweep), "swept 6 of 17 values (1, 2, 4, 8, 16, 17); left out 11 (3, 5..7, 9..15)");
}

TEST(KnobSweepValues, ADefaultOffThePowersOfTwoIsTried) {
  const KnobSweepValues sweep = knob_sweep_values(int_knob(6, 1, 19));
  EXPECT_EQ(sweep.values, ints({1, 2, 4, 6, 8, 16, 19}));
  EXPECT_EQ(sweep.left_out, (std::vector<KnobValueRun>{{3, 3}, {5, 5}, {7, 7}, {9, 15}, {17, 18}}));
  EXPECT_EQ(describe_knob_sweep(sweep),
            "swept 7 of 19 values (1, 2, 4, 6, 8, 16, 19); left out 12 (3, 5, 7, 9..15, 17, 18)");
  EXPECT_EQ(knob_sweep_values(int_knob(37, 1, 100)).values, ints({1, 2, 4, 8, 16, 32, 37, 64, 100}));
}

TEST(KnobSweepValues, PowersOfTwoOffTheGridAreRoundedToTheNearerValidValue) {
  // Valid: 0, 3, 6, ... 99. 1 -> 0, 2 -> 3, 4 -> 3, 8 -> 9, 16 -> 15, 32 -> 33, 64 -> 63.
  const KnobSweepValues sweep = knob_sweep_values(int_knob(0, 0, 99, 3));
  EXPECT_EQ(sweep.rule, KnobSweepRule::SAMPLED);
  EXPECT_EQ(sweep.values, ints({0, 3, 9, 15, 33, 63, 99}));
  EXPECT_EQ(sweep.valid_count, 34u);
  EXPECT_EQ(sweep.left_out, (std::vector<KnobValueRun>{{6, 6}, {12, 12}, {18, 30}, {36, 60}, {66, 96}}));
  EXPECT_EQ(describe_knob_sweep(sweep),
            "swept 7 of 34 values (0, 3, 9, 15, 33, 63, 99); left out 27 in steps of 3 "
            "(6, 12, 18..30, 36..60, 66..96)");
}

TEST(KnobSweepValues, APowerOfTwoHalfwayBetweenValidValuesTakesTheLowerOne) {
  // Valid: the odd numbers 1..99; every power of two above 1 is a tie.
  EXPECT_EQ(knob_sweep_values(int_knob(1, 1, 99, 2)).values, ints({1, 3, 7, 15, 31, 63, 99}));
}

TEST(KnobSweepValues, AMaximumOffTheGridIsNotTriedTheLargestValidValueIs) {
  EXPECT_EQ(knob_sweep_values(int_knob(16, 16, 70, 16)).values, ints({16, 32, 48, 64}));
  // 128 is within the bounds but beyond the last valid value 127.
  const KnobSweepValues sweep = knob_sweep_values(int_knob(1, 1, 130, 6));
  EXPECT_EQ(sweep.values, ints({1, 7, 13, 31, 61, 127}));
  EXPECT_EQ(sweep.valid_count, 22u);
}

TEST(KnobSweepValues, NegativeRangesGetTheirBoundsAndDefault) {
  const KnobSweepValues sweep = knob_sweep_values(int_knob(-10, -100, -1));
  EXPECT_EQ(sweep.values, ints({-100, -10, -1}));
  EXPECT_EQ(sweep.left_out, (std::vector<KnobValueRun>{{-99, -11}, {-9, -2}}));
  EXPECT_EQ(knob_sweep_values(int_knob(0, -20, 4)).values, ints({-20, 0, 1, 2, 4}));
}

TEST(KnobSweepValues, BoundsAtTheInt64LimitsDoNotOverflow) {
  const KnobSweepValues whole = knob_sweep_values(int_knob(0, kMin, kMax));
  EXPECT_EQ(whole.rule, KnobSweepRule::SAMPLED);
  ASSERT_EQ(whole.values.size(), 66u);  // both bounds, the default 0 and 2^0 .. 2^62
  EXPECT_EQ(whole.values.front(), KnobValue(kMin));
  EXPECT_EQ(whole.values[1], KnobValue(0));
  EXPECT_EQ(whole.values[64], KnobValue(std::int64_t{1} << 62));
  EXPECT_EQ(whole.values.back(), KnobValue(kMax));
  EXPECT_EQ(whole.valid_count, std::numeric_limits<std::uint64_t>::max());  // 2^64, saturated
  ASSERT_EQ(whole.left_out.size(), 63u);  // below 0, between 2^k and 2^(k+1) for k = 1..61, above 2^62
  EXPECT_EQ(whole.left_out.front(), (KnobValueRun{kMin + 1, -1}));
  EXPECT_EQ(whole.left_out.back(), (KnobValueRun{(std::int64_t{1} << 62) + 1, kMax - 1}));

  const KnobSweepValues top = knob_sweep_values(int_knob(kMax - 20, kMax - 20, kMax));
  EXPECT_EQ(top.values, ints({kMax - 20, kMax}));
  EXPECT_EQ(top.valid_count, 21u);
  EXPECT_EQ(top.left_out, (std::vector<KnobValueRun>{{kMax - 19, kMax - 1}}));

  const KnobSweepValues bottom = knob_sweep_values(int_knob(kMin, kMin, kMin + 20));
  EXPECT_EQ(bottom.values, ints({kMin, kMin + 20}));

  // Steps as wide as the type: the grid stops before it would overflow.
  EXPECT_EQ(knob_sweep_values(int_knob(0, kMin, kMax, std::int64_t{1} << 62)).values,
            ints({kMin, -(std::int64_t{1} << 62), 0, std::int64_t{1} << 62}));
  EXPECT_EQ(knob_sweep_values(int_knob(-1, kMin, kMax, kMax)).values, ints({kMin, -1, kMax - 1}));
}

TEST(KnobSweepValues, AnIntKnobWithoutBothBoundsTriesItsDefaultOnly) {
  for (const Knob& knob : {int_knob(7, std::nullopt, std::nullopt), int_knob(7, 1, std::nullopt, 2),
                           int_knob(7, std::nullopt, 64)}) {
    const KnobSweepValues sweep = knob_sweep_values(knob);
    EXPECT_EQ(sweep.rule, KnobSweepRule::DEFAULT_ONLY);
    EXPECT_EQ(sweep.values, ints({7}));
    EXPECT_FALSE(sweep.valid_count.has_value());
    EXPECT_EQ(sweep.left_out_count(), 0u);
    EXPECT_EQ(describe_knob_sweep(sweep), "only its default 7 (an int knob without both bounds is not swept)");
  }
}

TEST(KnobSweepValues, AFlagIsSweptWhole) {
  EXPECT_EQ(knob_sweep_values(int_knob(0, 0, 1)).values, ints({0, 1}));
}

TEST(KnobSweepValues, DoubleKnobsTryTheirDefaultConvertedToDouble) {
  Knob blend;
  blend.id = "blend";
  blend.type = KnobType::DOUBLE;
  blend.default_value = 1;  // an int default of a double knob
  blend.min_value = 0.0;
  blend.max_value = 2.0;
  ASSERT_TRUE(validate_knob(blend).is_good());
  const KnobSweepValues sweep = knob_sweep_values(blend);
  EXPECT_EQ(sweep.rule, KnobSweepRule::DEFAULT_ONLY);
  EXPECT_EQ(sweep.values, (std::vector<KnobValue>{1.0}));
  EXPECT_EQ(sweep.default_value, KnobValue(1.0));
  EXPECT_EQ(describe_knob_sweep(sweep), "only its default 1.0 (a double knob is not swept)");
}

TEST(KnobSweepValues, AllowedValuesAreTriedInTheirOrderEvenMoreThanSixteen) {
  Knob accumulate;
  accumulate.id = "accumulate";
  accumulate.type = KnobType::STRING;
  accumulate.default_value = "float";
  accumulate.allowed_values = {"float", "double"};
  const KnobSweepValues strings = knob_sweep_values(accumulate);
  EXPECT_EQ(strings.rule, KnobSweepRule::ALLOWED_VALUES);
  EXPECT_EQ(strings.values, (std::vector<KnobValue>{"float", "double"}));
  EXPECT_EQ(strings.valid_count, 2u);
  EXPECT_EQ(describe_knob_sweep(strings), "the 2 allowed values (\"float\", \"double\")");

  Knob many = int_knob(5, std::nullopt, std::nullopt);
  for (std::int64_t v = 20; v >= 1; --v) many.allowed_values.emplace_back(v);
  const KnobSweepValues listed = knob_sweep_values(many);
  EXPECT_EQ(listed.rule, KnobSweepRule::ALLOWED_VALUES);
  ASSERT_EQ(listed.values.size(), 20u);
  EXPECT_EQ(listed.values.front(), KnobValue(20));
  EXPECT_EQ(listed.left_out_count(), 0u);
}

TEST(KnobSweepValues, AllowedValuesTheKnobRejectsOrRepeatsAreDropped) {
  Knob tile = int_knob(16, 0, 32, 8);
  tile.allowed_values = ints({0, 16, 16, 12, 32, 64});  // 12: off the step grid, 64: above the maximum
  ASSERT_TRUE(validate_knob(tile).is_good());
  const KnobSweepValues sweep = knob_sweep_values(tile);
  EXPECT_EQ(sweep.values, ints({0, 16, 32}));
  EXPECT_EQ(sweep.valid_count, 3u);
}

TEST(KnobSweepValues, AStringKnobWithoutAllowedValuesTriesItsDefaultOnly) {
  Knob algo;
  algo.id = "algo";
  algo.type = KnobType::STRING;
  algo.default_value = "fast";
  const KnobSweepValues sweep = knob_sweep_values(algo);
  EXPECT_EQ(sweep.rule, KnobSweepRule::DEFAULT_ONLY);
  EXPECT_EQ(sweep.values, (std::vector<KnobValue>{"fast"}));
  EXPECT_EQ(describe_knob_sweep(sweep),
            "only its default \"fast\" (a string knob without allowed values is not swept)");
}

TEST(KnobSweepRule, NamesAreStable) {
  EXPECT_EQ(to_string(KnobSweepRule::ALLOWED_VALUES), "allowed_values");
  EXPECT_EQ(to_string(KnobSweepRule::EVERY_VALUE), "every_value");
  EXPECT_EQ(to_string(KnobSweepRule::SAMPLED), "sampled");
  EXPECT_EQ(to_string(KnobSweepRule::DEFAULT_ONLY), "default_only");
}

}  // namespace
}  // namespace tunekit::graph
