// Plan spec identity and the deduplicating list; engine config and variant types.
#include "tunekit/graph/plan_spec.hpp"

#include <gtest/gtest.h>

namespace tunekit::graph {
namespace {

TEST(PlanSpec, DefaultsDescribeNoEngine) {
  const PlanSpec spec;
  EXPECT_EQ(spec.engine_id, -1);
  EXPECT_TRUE(spec.knob_settings.empty());
  EXPECT_EQ(spec.estimated_workspace_size, 0);
  const EngineConfigInfo info;
  EXPECT_EQ(info.engine_id, -1);
  EXPECT_FALSE(info.supports_exhaustive);
  const EngineVariant variant;
  EXPECT_EQ(variant.engine_id, -1);
  EXPECT_TRUE(variant.knob_settings.empty());
}

TEST(PlanSpec, KnobOrderDoesNotAffectIdentity) {
  const PlanSpec a{7, {{"split_k", 2}, {"tile", 64}}, 100};
  const PlanSpec b{7, {{"tile", 64}, {"split_k", 2}}, 999};
  EXPECT_TRUE(a.same_candidate(b));
  EXPECT_TRUE(b.same_candidate(a));
}

TEST(PlanSpec, DifferentEnginesOrKnobValuesAreDifferentCandidates) {
  const PlanSpec a{7, {{"tile", 64}}, 0};
  EXPECT_FALSE(a.same_candidate(PlanSpec{8, {{"tile", 64}}, 0}));
  EXPECT_FALSE(a.same_candidate(PlanSpec{7, {{"tile", 32}}, 0}));
  EXPECT_FALSE(a.same_candidate(PlanSpec{7, {}, 0}));
  // Same number, other type: a different setting.
  EXPECT_FALSE(a.same_candidate(PlanSpec{7, {{"tile", 64.0}}, 0}));
}

TEST(PlanSpecList, SkipsDuplicatesAndKeepsOrder) {
  PlanSpecList list;
  EXPECT_TRUE(list.add({1, {}, 10}));
  EXPECT_TRUE(list.add({2, {{"a", 1}, {"b", 2}}, 30}));
  EXPECT_FALSE(list.add({2, {{"b", 2}, {"a", 1}}, 5}));
  EXPECT_FALSE(list.add({1, {}, 0}));
  EXPECT_TRUE(list.add({1, {{"a", 1}}, 20}));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list.specs()[0].engine_id, 1);
  EXPECT_EQ(list.specs()[1].engine_id, 2);
  EXPECT_EQ(list.specs()[1].estimated_workspace_size, 30);  // the first one stays
  EXPECT_EQ(list.max_estimated_workspace(), 30);
  list.clear();
  EXPECT_FALSE(list.max_estimated_workspace().has_value());
}

TEST(HeuristicMode, HasStableNames) {
  EXPECT_EQ(to_string(HeuristicMode::A), "a");
  EXPECT_EQ(to_string(HeuristicMode::B), "b");
  EXPECT_EQ(to_string(HeuristicMode::FALLBACK), "fallback");
}

}  // namespace
}  // namespace tunekit::graph
