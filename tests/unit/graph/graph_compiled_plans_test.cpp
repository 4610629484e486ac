// The compiled-plan path: plan creation, support checks, build policies,
// stable indices under deselect_*, plan-indexed access and execute().
#include <gtest/gtest.h>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

class CompiledPlans : public GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    FakeBehaviour small = behaviour(1, "small");
    small.workspace = [](const KnobValues&) { return std::int64_t{100}; };
    add(small);
    FakeBehaviour broken = behaviour(2, "broken");
    broken.fail_compile = true;
    add(broken);
    FakeBehaviour big = behaviour(3, "big");
    big.workspace = [](const KnobValues&) { return std::int64_t{4096}; };
    big.descriptor.knobs = {benchmarking_knob(), int_knob("level", 0, 0, 3)};
    add(big);
    FakeBehaviour finalize = behaviour(4, "no_finalize");
    finalize.fail_finalize = true;
    add(finalize);
  }
};

TEST_F(CompiledPlans, BuildAllCompilesEveryPlanAndKeepsIndicesStable) {
  build();
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.check_support().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  EXPECT_EQ(graph.get_execution_plan_count(), 4);
  EXPECT_EQ(engines[0]->counters().compiles, 1);
  EXPECT_EQ(engines[2]->counters().compiles, 1);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(0), 100);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(2), 4096);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(1), -1);
  std::int64_t size = 0;
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(1, size).message(),
            "get_workspace_size_plan_at_index: plan 1 ('broken') has not been built");
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(3, size).code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(graph.get_autotune_workspace_size(), 4096);
  std::string name;
  ASSERT_TRUE(graph.get_plan_name_at_index(2, name).is_good());
  EXPECT_EQ(name, "big");
  // build_plans selects the first built plan for execute().
  EXPECT_EQ(graph.get_workspace_size(), 100);
  EXPECT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[0]->counters().executions, 1);
}

TEST_F(CompiledPlans, HeuristicsChoiceCompilesUntilOneSucceeds) {
  build();
  engines[0]->behaviour().fail_compile = true;
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_good());
  EXPECT_EQ(graph.get_execution_plan_count(), 4);
  EXPECT_EQ(engines[0]->counters().compiles, 1);
  EXPECT_EQ(engines[1]->counters().compiles, 1);
  EXPECT_EQ(engines[2]->counters().compiles, 1);
  EXPECT_EQ(engines[3]->counters().compiles, 0);
  EXPECT_EQ(graph.get_workspace_size(), 4096);
}

TEST_F(CompiledPlans, IndexedAccessRejectsBadIndicesAndUnbuiltPlans) {
  build();
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  std::string name;
  EXPECT_EQ(graph.get_plan_name_at_index(4, name).message(),
            "get_plan_name_at_index: plan index 4 is out of range (the graph has 4 plans)");
  EXPECT_EQ(graph.get_plan_name_at_index(-1, name).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(-1), -1);
  EXPECT_EQ(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 7).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 0).message(),
            "execute_plan_at_index: plan 0 ('small') cannot run: it has not been built");
  EXPECT_EQ(graph.execute_plan_at_index(nullptr, pack, workspace.data(), 0).message(),
            "execute_plan_at_index: invalid handle (null)");
  EXPECT_EQ(graph.execute(handle.get(), pack, workspace.data()).message(),
            "execute: no plan is selected; call build_plans(), build_plan_at_index() or autotune() first");
  EXPECT_EQ(graph.build_plan_at_index(9).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(graph.build_plan_at_index(1).message(), "build_plan_at_index: plan 1 ('broken'): failed compile: compiler said no");
  ASSERT_TRUE(graph.build_plan_at_index(2).is_good());
  EXPECT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 2).is_good());
  EXPECT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[2]->counters().executions, 2);
}

TEST_F(CompiledPlans, DeselectBarsPlansWithoutRemovingThem) {
  build();
  graph.deselect_engines(std::vector<std::string>{"small"}).deselect_engines(std::vector<std::int64_t>{4});
  graph.deselect_workspace_greater_than(1000);
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  const Error built = graph.build_plans(BuildPlanPolicy::ALL);
  EXPECT_EQ(built.code(), ErrorCode::COMPILE_FAILED);  // every plan is barred or failed
  EXPECT_EQ(graph.get_execution_plan_count(), 4);
  EXPECT_EQ(engines[0]->counters().compiles, 0);  // excluded from compilation by name
  EXPECT_EQ(engines[3]->counters().compiles, 0);  // and by id
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(2), 4096);  // compiled, then barred by workspace
  EXPECT_EQ(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 2).message(),
            "execute_plan_at_index: plan 2 ('big') is excluded: Plan barred: workspace 4096 bytes is greater than "
            "deselect_workspace_greater_than(1000)");
  EXPECT_EQ(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 0).message(),
            "execute_plan_at_index: plan 0 ('small') is excluded: Plan barred: engine 'small' (id 1) is deselected by "
            "deselect_engines()");
  EXPECT_EQ(graph.build_plan_at_index(0).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(graph.get_autotune_workspace_size(), 0);
}

TEST_F(CompiledPlans, DeselectEdgeCases) {
  build();
  graph.deselect_engines(std::vector<std::string>{}).deselect_engines(std::vector<std::string>{"unknown"});
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  EXPECT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 0).is_good());
  EXPECT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 2).is_good());
  // Criteria stored after build_plans do not affect plans already built and evaluated.
  graph.deselect_workspace_greater_than(0);
  EXPECT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 2).is_good());
  // The threshold is last-write-wins.
  graph.deselect_workspace_greater_than(50).deselect_workspace_greater_than(200);
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  EXPECT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 0).is_good());
  EXPECT_EQ(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), 2).code(), ErrorCode::INVALID_VALUE);
}

TEST_F(CompiledPlans, ExtPlanReplacesPlansAndAcceptsTheBenchmarkingKnob) {
  build();
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.create_execution_plan_ext(3, {{"global.benchmarking", 1}, {"level", 2}}).is_good());
  EXPECT_EQ(graph.get_execution_plan_count(), 1);
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  std::string name;
  ASSERT_TRUE(graph.get_plan_name_at_index(0, name).is_good());
  EXPECT_EQ(name, "big[global.benchmarking=1, level=2]");
  EXPECT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[2]->counters().primed_executions, 1);
  EXPECT_EQ(graph.create_execution_plan_ext(3, {{"level", 9}}).message(),
            "create_execution_plan_ext: engine 'big' (id 3): knob 'level' must be at most 3, got 9");
  EXPECT_EQ(graph.create_execution_plan_ext(77).message(), "create_execution_plan_ext: engine id 77 is not registered");
}

TEST_F(CompiledPlans, CheckSupportMarksInapplicableEngines) {
  engines.clear();
  FakeBehaviour only = behaviour(1, "elsewhere");
  only.applicable = false;
  add(only);
  build();
  EXPECT_EQ(graph.create_execution_plans().message(), "create_execution_plans: no engine applies to this graph");
  ASSERT_TRUE(graph.create_execution_plan_ext(1).is_good());
  EXPECT_EQ(graph.check_support().message(), "check_support: no execution plan supports this graph");
  EXPECT_EQ(graph.build_plans(BuildPlanPolicy::ALL).message(),
            "build_plans: no plan could be built (first failure: not supported: only for other graphs)");
}

TEST_F(CompiledPlans, ExecuteChecksTheVariantPack) {
  build();
  ASSERT_TRUE(graph.build(handle.get()).is_good());
  EXPECT_EQ(graph.execute(handle.get(), VariantPack{}, workspace.data()).message(), "execute: the variant pack is empty");
  VariantPack missing{{1, a_data.data()}};
  EXPECT_EQ(graph.execute(handle.get(), missing, workspace.data()).message(),
            "execute: the variant pack is missing tensor uids [2, 3]");
  VariantPack extra = pack;
  extra[99] = nullptr;
  EXPECT_TRUE(graph.execute(handle.get(), extra, workspace.data()).is_good());
  EXPECT_EQ(graph.execute(handle.get(), pack, nullptr).message(),
            "plan 'small' needs 100 bytes of workspace but the workspace is null");
  TensorLookup lookup{{a, a_data.data()}, {b, b_data.data()}, {c, c_data.data()}};
  EXPECT_TRUE(graph.execute(handle.get(), lookup, workspace.data()).is_good());
}

}  // namespace
}  // namespace tunekit::graph::testing
