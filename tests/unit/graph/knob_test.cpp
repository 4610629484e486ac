// Knob normalization, bounds, steps, allowed values and knob coherence.
#include "tunekit/graph/knob.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace tunekit::graph {
namespace {

Knob tile() {
  Knob k;
  k.id = "tile_m";
  k.type = KnobType::INT;
  k.default_value = 32;
  k.min_value = 16;
  k.max_value = 128;
  k.step = 16;
  return k;
}

TEST(Knob, DefaultConstructedDescribesAnIntKnobWithDefaultZero) {
  const Knob k;
  EXPECT_EQ(k.type, KnobType::INT);
  EXPECT_EQ(k.default_value, KnobValue(std::int64_t{0}));
  EXPECT_FALSE(k.min_value.has_value());
  EXPECT_TRUE(k.allowed_values.empty());
}

TEST(Knob, IntValuesAreCheckedAgainstBoundsAndStep) {
  EXPECT_EQ(*normalize_knob_value(tile(), 48), KnobValue(48));
  EXPECT_EQ(normalize_knob_value(tile(), 256).error().message(), "knob 'tile_m' must be at most 128, got 256");
  EXPECT_EQ(normalize_knob_value(tile(), 0).error().message(), "knob 'tile_m' must be at least 16, got 0");
  EXPECT_EQ(normalize_knob_value(tile(), 40).error().message(),
            "knob 'tile_m' must be 16 plus a multiple of 16, got 40");
  EXPECT_EQ(normalize_knob_value(tile(), 48).error().code(), ErrorCode::OK);
}

TEST(Knob, TheStepIsCheckedWithoutOverflowAcrossTheWholeInt64Range) {
  Knob k;
  k.id = "offset";
  k.min_value = std::numeric_limits<std::int64_t>::min();
  k.max_value = std::numeric_limits<std::int64_t>::max();
  k.step = std::int64_t{1} << 62;
  EXPECT_TRUE(normalize_knob_value(k, 0).ok());  // 2^63 above the minimum
  EXPECT_TRUE(normalize_knob_value(k, std::int64_t{1} << 62).ok());
  EXPECT_EQ(normalize_knob_value(k, std::numeric_limits<std::int64_t>::max()).error().message(),
            "knob 'offset' must be -9223372036854775808 plus a multiple of 4611686018427387904, got "
            "9223372036854775807");
  Knob no_minimum;  // the implicit base 0: multiples of the step on either side
  no_minimum.id = "shift";
  no_minimum.step = 4;
  EXPECT_TRUE(normalize_knob_value(no_minimum, -8).ok());
  EXPECT_FALSE(normalize_knob_value(no_minimum, -6).ok());
  EXPECT_TRUE(normalize_knob_value(no_minimum, std::numeric_limits<std::int64_t>::min()).ok());
}

TEST(Knob, TypesDoNotConvertExceptIntegersToDouble) {
  EXPECT_EQ(normalize_knob_value(tile(), 32.0).error().message(), "knob 'tile_m' expects a int value, got 32.0");
  EXPECT_EQ(normalize_knob_value(tile(), "32").error().code(), ErrorCode::INVALID_VALUE);
  Knob ratio;
  ratio.id = "ratio";
  ratio.type = KnobType::DOUBLE;
  ratio.default_value = 0.5;
  ratio.min_value = 0.0;
  ratio.max_value = 4.0;
  Result<KnobValue> two = normalize_knob_value(ratio, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE(two->is_double());
  EXPECT_EQ(*two, KnobValue(2.0));
  EXPECT_EQ(normalize_knob_value(ratio, 4.5).error().message(), "knob 'ratio' must be at most 4.0, got 4.5");
}

TEST(Knob, AChoiceKnobDefaultsToItsFirstValueAndAcceptsOnlyItsValues) {
  const Knob knob = choice_knob("order", {"auto", "rows", "blocks"}, "task order");
  EXPECT_EQ(knob.id, "order");
  EXPECT_EQ(knob.type, KnobType::STRING);
  EXPECT_EQ(knob.default_value, KnobValue(std::string("auto")));
  EXPECT_EQ(knob.description, "task order");
  EXPECT_TRUE(validate_knob(knob).is_good());
  EXPECT_TRUE(normalize_knob_value(knob, std::string("blocks")).ok());
  EXPECT_FALSE(normalize_knob_value(knob, std::string("columns")).ok());
  EXPECT_FALSE(normalize_knob_value(knob, std::int64_t{1}).ok());
}

TEST(Knob, StringKnobsAcceptOnlyAllowedValues) {
  Knob algo;
  algo.id = "algo";
  algo.type = KnobType::STRING;
  algo.default_value = "fast";
  algo.allowed_values = {"fast", "exact"};
  EXPECT_TRUE(normalize_knob_value(algo, "exact").ok());
  EXPECT_EQ(normalize_knob_value(algo, "slow").error().message(),
            "knob 'algo' must be one of [\"fast\", \"exact\"], got \"slow\"");
  EXPECT_TRUE(validate_knob(algo).is_good());
}

TEST(Knob, IncoherentKnobsAreRejected) {
  Knob k = tile();
  k.default_value = 20;
  EXPECT_EQ(validate_knob(k).message(), "default value: knob 'tile_m' must be 16 plus a multiple of 16, got 20");
  k = tile();
  k.min_value = 256;
  EXPECT_EQ(validate_knob(k).message(), "knob 'tile_m' has a minimum above its maximum");
  k = tile();
  k.id.clear();
  EXPECT_EQ(validate_knob(k).message(), "a knob has an empty id");
  Knob s;
  s.id = "name";
  s.type = KnobType::STRING;
  s.default_value = "x";
  s.min_value = 1;
  EXPECT_EQ(validate_knob(s).message(), "knob 'name' is a string knob and cannot have bounds or a step");
}

TEST(Knob, CanonicalSettingsIgnoreOrder) {
  const std::vector<KnobSetting> a{{"b", 1}, {"a", 2}};
  const std::vector<KnobSetting> b{{"a", 2}, {"b", 1}};
  EXPECT_EQ(canonical_knob_settings(a), canonical_knob_settings(b));
  EXPECT_EQ(describe_knob_settings(a), "a=2, b=1");
  EXPECT_EQ(describe_knob_settings({}), "defaults");
}

TEST(Knob, KnobValuesGiveTypedAccessWithFallbacks) {
  KnobValues values;
  values.set("n", 4);
  values.set("r", 0.25);
  values.set("s", "fast");
  EXPECT_EQ(values.get_int("n"), 4);
  EXPECT_EQ(values.get_int("missing", 9), 9);
  EXPECT_EQ(values.get_int("s", 7), 7);
  EXPECT_DOUBLE_EQ(values.get_double("n"), 4.0);
  EXPECT_DOUBLE_EQ(values.get_double("r"), 0.25);
  EXPECT_EQ(values.get_string("s"), "fast");
  EXPECT_TRUE(values.contains("r"));
  EXPECT_FALSE(values.contains("x"));
}

TEST(Knob, TypeNamesRoundTrip) {
  for (KnobType type : {KnobType::INT, KnobType::DOUBLE, KnobType::STRING}) {
    EXPECT_EQ(parse_knob_type(to_string(type)), type);
  }
  EXPECT_FALSE(parse_knob_type("bool").has_value());
}

}  // namespace
}  // namespace tunekit::graph
