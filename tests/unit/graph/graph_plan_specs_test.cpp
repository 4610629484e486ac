// The plan-spec path on a Graph: discovery, every add_engine* call, its
// preconditions, deduplication, stripping of global.benchmarking, partial
// application and the workspace estimate.
#include <gtest/gtest.h>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

class PlanSpecs : public GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    FakeBehaviour tiled = behaviour(10, "tiled");
    tiled.descriptor.knobs = {int_knob("tile", 32, 16, 128, 16), int_knob("split_k", 1, 1, 8)};
    tiled.descriptor.heuristic_priority = 2;
    tiled.estimate = [](const KnobValues& k) { return k.get_int("tile") * 100; };
    tiled.refuse = [](const KnobValues& k) {
      return k.get_int("tile") == 112 ? std::string("tile: 112 has nothing to choose here") : std::string();
    };
    add(tiled);
    FakeBehaviour primed = behaviour(20, "primed");
    primed.descriptor.knobs = {benchmarking_knob(), int_knob("level", 0, 0, 3)};
    primed.descriptor.heuristic_priority = 1;
    primed.estimate = [](const KnobValues&) { return std::int64_t{5000}; };
    add(primed);
    FakeBehaviour other = behaviour(30, "other_graphs_only");
    other.applicable = false;
    add(other);
  }

  std::vector<std::int64_t> spec_ids() const {
    std::vector<std::int64_t> ids;
    for (const auto& spec : graph.plan_specs()) ids.push_back(spec.engine_id);
    return ids;
  }
};

TEST_F(PlanSpecs, EngineConfigsListApplicableEnginesInModeOrder) {
  build();
  std::vector<EngineConfigInfo> configs;
  ASSERT_TRUE(graph.get_engine_configs(configs).is_good());
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].engine_name, "tiled");
  EXPECT_EQ(configs[0].estimated_workspace_size, 3200);
  EXPECT_FALSE(configs[0].supports_exhaustive);
  EXPECT_EQ(configs[0].knobs.size(), 2u);
  EXPECT_EQ(configs[1].engine_name, "primed");
  EXPECT_TRUE(configs[1].supports_exhaustive);
  ASSERT_TRUE(graph.get_engine_configs(configs, {HeuristicMode::A}).is_good());
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].engine_name, "primed");
}

TEST_F(PlanSpecs, EveryAddCallNeedsABuiltGraph) {
  build(false);
  const std::string suffix = ": build_operation_graph() has not been called";
  EXPECT_EQ(graph.add_engine(10).message(), "add_engine" + suffix);
  EXPECT_EQ(graph.add_engines({10}).message(), "add_engines" + suffix);
  EXPECT_EQ(graph.add_engine_configs({EngineConfigInfo{}}).message(), "add_engine_configs" + suffix);
  EXPECT_EQ(graph.add_engine_variants({EngineVariant{10, {}}}).message(), "add_engine_variants" + suffix);
  EXPECT_EQ(graph.add_engine_sweep({EngineSweepSpec{10, {}, {}}}).message(), "add_engine_sweep" + suffix);
  EXPECT_EQ(graph.add_all_engines().message(), "add_all_engines" + suffix);
  EXPECT_EQ(graph.check_engine_variant({10, {}}).message(), "check_engine_variant" + suffix);
  std::vector<EngineConfigInfo> configs;
  EXPECT_EQ(graph.get_engine_configs(configs).code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(graph.add_engine(10).code(), ErrorCode::BAD_STATE);
}

TEST_F(PlanSpecs, EmptyInputIsAnError) {
  build();
  EXPECT_EQ(graph.add_engine_configs({}).message(), "add_engine_configs: no engine configs given");
  EXPECT_EQ(graph.add_engines({}).message(), "add_engines: no engine ids given");
  EXPECT_EQ(graph.add_engine_variants({}).message(), "add_engine_variants: no variants given");
  EXPECT_EQ(graph.add_engine_sweep({}).message(), "add_engine_sweep: no sweep specs given");
  EXPECT_TRUE(graph.plan_specs().empty());
  std::int64_t size = 77;
  EXPECT_EQ(graph.get_estimated_max_workspace_size(size).message(),
            "get_estimated_max_workspace_size: no plan specs have been added");
  EXPECT_EQ(size, 77);
}

TEST_F(PlanSpecs, AddEngineValidatesIdsAndKnobs) {
  build();
  EXPECT_EQ(graph.add_engine(99).message(), "add_engine: engine id 99 is not registered");
  EXPECT_EQ(graph.add_engine(10, {{"tile_q", 1}}).message(), "add_engine: engine 'tiled' (id 10) has no knob 'tile_q'");
  EXPECT_EQ(graph.add_engine(10, {{"tile", 256}}).message(),
            "add_engine: engine 'tiled' (id 10): knob 'tile' must be at most 128, got 256");
  EXPECT_EQ(graph.add_engine(10, {{"tile", 32}, {"tile", 64}}).message(),
            "add_engine: engine 'tiled' (id 10): knob 'tile' is set twice");
  EXPECT_TRUE(graph.plan_specs().empty());
  ASSERT_TRUE(graph.add_engine(10, {{"tile", 64}}).is_good());
  ASSERT_EQ(graph.plan_specs().size(), 1u);
  EXPECT_EQ(graph.plan_specs()[0].estimated_workspace_size, 6400);
}

TEST_F(PlanSpecs, DuplicatesAreSkippedRegardlessOfKnobOrder) {
  build();
  ASSERT_TRUE(graph.add_engine(10, {{"tile", 64}, {"split_k", 2}}).is_good());
  ASSERT_TRUE(graph.add_engine(10, {{"split_k", 2}, {"tile", 64}}).is_good());
  ASSERT_TRUE(graph.add_engine_variants({{10, {{"split_k", 2}, {"tile", 64}}}}).is_good());
  ASSERT_TRUE(graph.add_engine(10).is_good());
  ASSERT_TRUE(graph.add_engine(10, {}).is_good());  // {} is the same as no settings
  ASSERT_TRUE(graph.add_engines({10, 20}).is_good());
  EXPECT_EQ(spec_ids(), (std::vector<std::int64_t>{10, 10, 20}));
}

TEST_F(PlanSpecs, BenchmarkingKnobIsStrippedWithAWarning) {
  build();
  LogCapture logs;
  ASSERT_TRUE(graph.add_engine(20, {{"global.benchmarking", 1}, {"level", 2}}).is_good());
  ASSERT_EQ(graph.plan_specs().size(), 1u);
  EXPECT_EQ(graph.plan_specs()[0].knob_settings, (std::vector<KnobSetting>{{"level", 2}}));
  EXPECT_EQ(logs.count_containing("add_engine: engine 'primed' (id 20): knob 'global.benchmarking' stripped",
                                  log::Level::WARN),
            1);
  ASSERT_TRUE(graph.add_engine_variants({{20, {{"global.benchmarking", 1}}}}).is_good());
  ASSERT_EQ(graph.plan_specs().size(), 2u);
  EXPECT_TRUE(graph.plan_specs()[1].knob_settings.empty());
}

TEST_F(PlanSpecs, VariantsSkipUnknownEnginesAndStopAtTheFirstBadKnob) {
  build();
  LogCapture logs;
  const Error error = graph.add_engine_variants({{10, {{"tile", 16}}},
                                                 {99, {}},
                                                 {10, {{"tile", 48}}},
                                                 {10, {{"tile", 17}}},
                                                 {10, {{"tile", 80}}}});
  EXPECT_EQ(error.message(),
            "add_engine_variants: variant 3: engine 'tiled' (id 10): knob 'tile' must be 16 plus a multiple of 16, got 17");
  // Partial application: the variants before the bad one stay stored.
  ASSERT_EQ(graph.plan_specs().size(), 2u);
  EXPECT_EQ(graph.plan_specs()[1].knob_settings, (std::vector<KnobSetting>{{"tile", 48}}));
  EXPECT_EQ(logs.count_containing("add_engine_variants: variant 1 skipped: engine id 99 is not registered",
                                  log::Level::WARN),
            1);
}

// A knob combination the engine refuses for this graph (NOT_SUPPORTED) is
// skipped with its reason by the batch calls, which keep the other variants:
// a sweep over every knob of an engine meets such combinations.
TEST_F(PlanSpecs, VariantsAndSweepsSkipCombinationsTheEngineRefusesForThisGraph) {
  build();
  LogCapture logs;
  ASSERT_TRUE(graph.add_engine_variants({{10, {{"tile", 16}}}, {10, {{"tile", 112}}}, {10, {{"tile", 48}}}}).is_good());
  ASSERT_EQ(graph.plan_specs().size(), 2u);
  EXPECT_EQ(graph.plan_specs()[1].knob_settings, (std::vector<KnobSetting>{{"tile", 48}}));
  EXPECT_EQ(logs.count_containing("add_engine_variants: variant 1: tile: 112 has nothing to choose here (skipped)",
                                  log::Level::INFO),
            1);
  ASSERT_TRUE(graph.add_engine_sweep({{10, {{"tile", {96, 112, 128}}}, {}}}).is_good());
  EXPECT_EQ(graph.plan_specs().size(), 4u);
  // A single add_engine still reports the refusal.
  const Error single = graph.add_engine(10, {{"tile", 112}});
  EXPECT_EQ(single.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(single.message(), "add_engine: tile: 112 has nothing to choose here");
}

// check_engine_variant says what the batch calls would find, storing nothing.
TEST_F(PlanSpecs, CheckingAVariantSaysWhatTheBatchCallsWouldFindWithoutStoringIt) {
  build();
  EXPECT_TRUE(graph.check_engine_variant({10, {{"tile", 48}}}).is_good());
  const Error refused = graph.check_engine_variant({10, {{"tile", 112}}});
  EXPECT_EQ(refused.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(refused.message(), "tile: 112 has nothing to choose here");
  EXPECT_EQ(graph.check_engine_variant({10, {{"tile", 17}}}).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(graph.check_engine_variant({99, {}}).message(), "check_engine_variant: engine id 99 is not registered");
  EXPECT_TRUE(graph.plan_specs().empty());
}

TEST_F(PlanSpecs, BatchCallsThatSkipEverythingSucceed) {
  build();
  EXPECT_TRUE(graph.add_engine_variants({{98, {}}, {99, {}}}).is_good());
  EXPECT_TRUE(graph.add_engine_sweep({{97, {{"tile", {16}}}, {}}}).is_good());
  EXPECT_TRUE(graph.plan_specs().empty());
}

TEST_F(PlanSpecs, SweepsStoreTheCartesianProduct) {
  build();
  LogCapture logs;
  ASSERT_TRUE(graph.add_engine_sweep({{10, {{"tile", {16, 32, 64}}, {"split_k", {1, 2}}, {"global.benchmarking", {1}}}, {}}})
                  .is_good());
  ASSERT_EQ(graph.plan_specs().size(), 6u);
  EXPECT_EQ(graph.plan_specs()[5].knob_settings, (std::vector<KnobSetting>{{"split_k", 2}, {"tile", 64}}));
  EXPECT_EQ(logs.count_containing("sweep axis 'global.benchmarking' stripped", log::Level::WARN), 1);
  const Error bad = graph.add_engine_sweep({{10, {{"tile", {16, 1000}}}, {}}});
  EXPECT_EQ(bad.message(),
            "add_engine_sweep: spec 0 combination 1: engine 'tiled' (id 10): knob 'tile' must be at most 128, got 1000");
  EXPECT_EQ(graph.plan_specs().size(), 7u);  // the combination before the bad one stays stored
}

TEST_F(PlanSpecs, SweepAboveTenThousandIsRejected) {
  FakeBehaviour wide = behaviour(40, "wide");
  wide.descriptor.knobs = {int_knob("a", 0, 0, 1000), int_knob("b", 0, 0, 1000)};
  add(wide);
  build();
  std::vector<KnobValue> hundred, hundred_one;
  for (int i = 0; i < 100; ++i) hundred.emplace_back(i);
  hundred_one = hundred;
  hundred_one.emplace_back(100);
  EXPECT_EQ(graph.add_engine_sweep({{40, {{"a", hundred_one}, {"b", hundred}}, {}}}).message(),
            "add_engine_sweep: spec 0: engine id 40: the sweep produces 10100 plan specs, more than the limit of 10000");
  EXPECT_TRUE(graph.plan_specs().empty());
}

TEST_F(PlanSpecs, ConfigsAreTrustedAndAllEnginesAdded) {
  build();
  ASSERT_TRUE(graph.add_engine_configs({EngineConfigInfo{555, "ghost", {}, false, 9}}).is_good());
  ASSERT_TRUE(graph.add_all_engines().is_good());
  EXPECT_EQ(spec_ids(), (std::vector<std::int64_t>{555, 10, 20}));
  std::int64_t size = 0;
  ASSERT_TRUE(graph.get_estimated_max_workspace_size(size).is_good());
  EXPECT_EQ(size, 5000);
}

TEST_F(PlanSpecs, PlanSpecsAndCompiledPlansExcludeEachOther) {
  build();
  ASSERT_TRUE(graph.add_engine(10).is_good());
  EXPECT_EQ(graph.create_execution_plans().message(),
            "create_execution_plans: the graph already has plan specs (plan-spec path); the compiled-plan path cannot "
            "be used on the same graph");
  EXPECT_EQ(graph.create_execution_plan_ext(10).code(), ErrorCode::BAD_STATE);

  Graph other;
  auto x = other.tensor(TensorAttributes().set_name("A").set_uid(1).set_dim({4, 8}));
  auto y = other.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({8, 2}));
  other.matmul(x, y, "mm")->set_output(true);
  ASSERT_TRUE(other.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(other.create_execution_plans().is_good());
  const std::string suffix =
      ": the graph already has execution plans (compiled-plan path); the plan-spec path cannot be used on the same graph";
  EXPECT_EQ(other.add_engine(10).message(), "add_engine" + suffix);
  EXPECT_EQ(other.add_engines({10}).message(), "add_engines" + suffix);
  EXPECT_EQ(other.add_engine_configs({EngineConfigInfo{}}).message(), "add_engine_configs" + suffix);
  EXPECT_EQ(other.add_engine_variants({{10, {}}}).message(), "add_engine_variants" + suffix);
  EXPECT_EQ(other.add_engine_sweep({{10, {}, {}}}).message(), "add_engine_sweep" + suffix);
  EXPECT_EQ(other.add_all_engines().message(), "add_all_engines" + suffix);
}

}  // namespace
}  // namespace tunekit::graph::testing
