// The candidates of one engine's knob sweep: every combination of its knobs'
// values minus the all-defaults one, each naming only the knobs off their
// defaults; global.benchmarking left to autotune(); and the fallbacks that
// keep the candidates within kSweepErrorThreshold, at the exact boundary.
#include "tunekit/graph/engine_knob_sweep.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>

#include "tunekit/graph/engine_sweep.hpp"

namespace tunekit::graph {
namespace {

Knob int_knob(std::string id, std::int64_t default_value, std::int64_t min, std::int64_t max, std::int64_t step = 0) {
  Knob k;
  k.id = std::move(id);
  k.type = KnobType::INT;
  k.default_value = default_value;
  k.min_value = min;
  k.max_value = max;
  if (step > 0) k.step = step;
  return k;
}

// An INT knob allowing 0 .. count - 1, default 0.
Knob listed_knob(std::string id, int count) {
  Knob k;
  k.id = std::move(id);
  for (int v = 0; v < count; ++v) k.allowed_values.emplace_back(v);
  return k;
}

EngineConfigInfo engine(std::vector<Knob> knobs) { return EngineConfigInfo{7, "seven", std::move(knobs), false, 0}; }

using Settings = std::map<std::string, KnobValue>;

std::vector<Settings> settings_of(const EngineKnobSweep& sweep) {
  std::vector<Settings> out;
  for (const EngineVariant& v : sweep.variants) {
    EXPECT_EQ(v.engine_id, 7);
    out.push_back(v.knob_settings);
  }
  return out;
}

TEST(EngineKnobSweep, OneKnobGivesItsValuesOtherThanTheDefault) {
  const EngineKnobSweep sweep = engine_knob_sweep(engine({int_knob("tile", 32, 16, 64, 16)}));
  EXPECT_EQ(sweep.engine_id, 7);
  EXPECT_EQ(sweep.engine_name, "seven");
  ASSERT_EQ(sweep.knobs.size(), 1u);
  EXPECT_EQ(sweep.knobs[0].rule, KnobSweepRule::EVERY_VALUE);
  EXPECT_EQ(sweep.combinations, 4u);
  EXPECT_EQ(sweep.combining, KnobCombining::EVERY_COMBINATION);
  EXPECT_EQ(settings_of(sweep), (std::vector<Settings>{{{"tile", 16}}, {{"tile", 48}}, {{"tile", 64}}}));
}

TEST(EngineKnobSweep, CombinationsWithSomeKnobsAtTheirDefaultsSetOnlyTheOthers) {
  Knob accumulate;
  accumulate.id = "accumulate";
  accumulate.type = KnobType::STRING;
  accumulate.default_value = "y";
  accumulate.allowed_values = {"x", "y", "z"};
  const EngineKnobSweep sweep = engine_knob_sweep(engine({int_knob("flag", 0, 0, 1), accumulate}));
  EXPECT_EQ(sweep.combinations, 6u);
  EXPECT_EQ(settings_of(sweep), (std::vector<Settings>{{{"accumulate", "x"}},
                                                       {{"accumulate", "z"}},
                                                       {{"flag", 1}, {"accumulate", "x"}},
                                                       {{"flag", 1}},
                                                       {{"flag", 1}, {"accumulate", "z"}}}));
}

TEST(EngineKnobSweep, TheBenchmarkingKnobIsLeftToAutotune) {
  const EngineKnobSweep sweep =
      engine_knob_sweep(engine({int_knob(std::string(kBenchmarkingKnob), 0, 0, 1), int_knob("unroll", 1, 1, 2)}));
  ASSERT_EQ(sweep.knobs.size(), 1u);
  EXPECT_EQ(sweep.knobs[0].knob_id, "unroll");
  EXPECT_EQ(settings_of(sweep), (std::vector<Settings>{{{"unroll", 2}}}));
}

TEST(EngineKnobSweep, AnEngineWithoutSweepableKnobsGetsNoVariants) {
  const EngineKnobSweep none = engine_knob_sweep(engine({}));
  EXPECT_TRUE(none.knobs.empty());
  EXPECT_EQ(none.combinations, 1u);
  EXPECT_TRUE(none.variants.empty());
  Knob blend;
  blend.id = "blend";
  blend.type = KnobType::DOUBLE;
  blend.default_value = 0.5;
  blend.min_value = 0.0;
  blend.max_value = 1.0;
  const EngineKnobSweep real = engine_knob_sweep(engine({blend}));
  ASSERT_EQ(real.knobs.size(), 1u);
  EXPECT_EQ(real.knobs[0].rule, KnobSweepRule::DEFAULT_ONLY);
  EXPECT_TRUE(real.variants.empty());
}

TEST(EngineKnobSweep, AProductAtTheLimitIsSweptInFull) {
  static_assert(kSweepErrorThreshold == 10'000);
  const EngineKnobSweep sweep = engine_knob_sweep(engine({listed_knob("a", 100), listed_knob("b", 100)}));
  EXPECT_EQ(sweep.combinations, 10'000u);
  EXPECT_EQ(sweep.combining, KnobCombining::EVERY_COMBINATION);
  EXPECT_EQ(sweep.variants.size(), 9'999u);
  EXPECT_EQ(sweep.variants.front().knob_settings, (Settings{{"b", 1}}));
  EXPECT_EQ(sweep.variants.back().knob_settings, (Settings{{"a", 99}, {"b", 99}}));
}

TEST(EngineKnobSweep, AProductAboveTheLimitSweepsEachKnobAloneAtTheOthersDefaults) {
  const EngineKnobSweep sweep = engine_knob_sweep(engine({listed_knob("a", 101), listed_knob("b", 100)}));
  EXPECT_EQ(sweep.combinations, 10'100u);
  EXPECT_EQ(sweep.combining, KnobCombining::EACH_KNOB_ALONE);
  ASSERT_EQ(sweep.variants.size(), 100u + 99u);
  EXPECT_EQ(sweep.variants[0].knob_settings, (Settings{{"a", 1}}));
  EXPECT_EQ(sweep.variants[99].knob_settings, (Settings{{"a", 100}}));
  EXPECT_EQ(sweep.variants[100].knob_settings, (Settings{{"b", 1}}));
  EXPECT_EQ(sweep.variants.back().knob_settings, (Settings{{"b", 99}}));

  // Four knobs of 16 values: 65536 combinations, 4 x 15 alone.
  std::vector<Knob> four;
  for (const char* id : {"w", "x", "y", "z"}) four.push_back(int_knob(id, 1, 1, 16));
  const EngineKnobSweep wide = engine_knob_sweep(engine(four));
  EXPECT_EQ(wide.combinations, 65'536u);
  EXPECT_EQ(wide.combining, KnobCombining::EACH_KNOB_ALONE);
  EXPECT_EQ(wide.variants.size(), 60u);
}

TEST(EngineKnobSweep, WhenEvenEachKnobAloneIsAboveTheLimitOnlyTheDefaultsAreTried) {
  // 100 knobs of 101 values: alone, 1 + 100 x 100 = 10001 candidates.
  std::vector<Knob> knobs;
  for (int i = 0; i < 100; ++i) knobs.push_back(listed_knob(fmt::format("k{}", i), 101));
  const EngineKnobSweep sweep = engine_knob_sweep(engine(knobs));
  EXPECT_EQ(sweep.combinations, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(sweep.combining, KnobCombining::DEFAULTS_ONLY);
  EXPECT_TRUE(sweep.variants.empty());
  // One value fewer on one knob: 10000 candidates, swept alone.
  knobs[0] = listed_knob("k0", 100);
  EXPECT_EQ(engine_knob_sweep(engine(knobs)).combining, KnobCombining::EACH_KNOB_ALONE);
  EXPECT_EQ(engine_knob_sweep(engine(knobs)).variants.size(), 9'999u);
}

TEST(KnobCombining, NamesAreStable) {
  EXPECT_EQ(to_string(KnobCombining::EVERY_COMBINATION), "every_combination");
  EXPECT_EQ(to_string(KnobCombining::EACH_KNOB_ALONE), "each_knob_alone");
  EXPECT_EQ(to_string(KnobCombining::DEFAULTS_ONLY), "defaults_only");
}

}  // namespace
}  // namespace tunekit::graph
