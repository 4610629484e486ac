// The integration-test provider itself: every engine registers, computes the
// right matmul (or fails the way it should), and the coarse-timer device
// quantizes as promised.
#include <gtest/gtest.h>

#include "graph_test_provider.hpp"

namespace tunekit::graph::test_provider {
namespace {

class Provider : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(reg->add_provider(provider).is_good());
    registry = reg;
    handle = std::move(Handle::create(device, registry)).value();
  }
  TestProvider provider;
  std::shared_ptr<const EngineRegistry> registry;
  platform::CpuDevice device;
  std::unique_ptr<Handle> handle;
};

TEST_F(Provider, RegistersNineEnginesWithUniqueIdsAndNames) {
  EXPECT_EQ(registry->size(), 9u);
  EngineRegistry again;
  ASSERT_TRUE(again.add_provider(provider).is_good());
  EXPECT_EQ(again.add_provider(provider).message(), "engine registry: engine id 101 ('naive') is already registered");
  EXPECT_TRUE(registry->find(kCached)->descriptor().supports_exhaustive());
  EXPECT_FALSE(registry->find(kTiled)->descriptor().supports_exhaustive());
  EXPECT_EQ(registry->find("delayed")->descriptor().id, kDelayed);
}

TEST_F(Provider, EveryWorkingEngineComputesTheMatmul) {
  for (std::int64_t id : {kNaive, kTiled, kCached, kFailsWhenPrimed, kWorkspaceGrows, kDelayed, kDoubleAccumulate}) {
    Graph graph;
    MatmulProblem problem(graph, 13, 29, 11, static_cast<unsigned>(id));
    ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
    ASSERT_TRUE(graph.create_execution_plan_ext(id, id == kDelayed ? std::map<std::string, KnobValue>{{"delay_us", 0}}
                                                                   : std::map<std::string, KnobValue>{})
                    .is_good());
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good()) << id;
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    problem.poison();
    ASSERT_TRUE(graph.execute(handle.get(), problem.pack(), workspace.data()).is_good()) << id;
    EXPECT_LT(problem.max_relative_error(), 1e-5) << id;
  }
}

TEST_F(Provider, KnobsOfEveryTypeChangeHowTiledWorksButNotWhatItComputes) {
  for (const auto& knobs : std::vector<std::map<std::string, KnobValue>>{
           {{"tile", 4}}, {{"tile", 12}, {"accumulate", "double"}}, {{"tile", 64}, {"prefetch_ratio", 1.0}}}) {
    Graph graph;
    MatmulProblem problem(graph, 9, 17, 21);
    ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
    ASSERT_TRUE(graph.create_execution_plan_ext(kTiled, knobs).is_good());
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
    EXPECT_EQ(graph.get_workspace_size(), 17 * knobs.at("tile").as_int().value() * 4);
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()));
    problem.poison();
    ASSERT_TRUE(graph.execute(handle.get(), problem.pack(), workspace.data()).is_good());
    EXPECT_LT(problem.max_relative_error(), 1e-5);
  }
}

TEST_F(Provider, FailingEnginesFailTheirOwnWay) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plan_ext(kAlwaysFails).is_good());
  EXPECT_EQ(graph.build_plans().message(),
            "build_plans: no plan could be built (first failure: failed compile: this engine never compiles)");
  ASSERT_TRUE(graph.create_execution_plan_ext(kFailsWhenPrimed, {{"global.benchmarking", 1}}).is_good());
  EXPECT_EQ(graph.build_plans().code(), ErrorCode::COMPILE_FAILED);
  ASSERT_TRUE(graph.create_execution_plan_ext(kThrows).is_good());
  ASSERT_TRUE(graph.build_plans().is_good());
  EXPECT_EQ(graph.execute(handle.get(), problem.pack(), nullptr).message(),
            "engine 'throws' threw during execution: engine bug");
}

TEST_F(Provider, PrimingPopulatesTheCache) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plan_ext(kCached, {{"global.benchmarking", 1}}).is_good());
  ASSERT_TRUE(graph.build_plans().is_good());
  EXPECT_EQ(provider.counters().cache_entries.load(), 0);
  problem.poison();
  ASSERT_TRUE(graph.execute(handle.get(), problem.pack(), nullptr).is_good());
  EXPECT_EQ(provider.counters().cache_entries.load(), 1);
  EXPECT_EQ(provider.counters().primed_executions.load(), 1);
  EXPECT_LT(problem.max_relative_error(), 1e-5);
}

TEST_F(Provider, EnginesRejectGraphsTheyCannotRun) {
  Graph graph;
  auto x = graph.tensor(TensorAttributes().set_name("X").set_uid(1).set_dim({4}));
  graph.pointwise(x, PointwiseMode::RELU, "relu")->set_output(true);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  std::vector<EngineConfigInfo> configs;
  ASSERT_TRUE(graph.get_engine_configs(configs).is_good());
  EXPECT_TRUE(configs.empty());
  EXPECT_EQ(graph.add_all_engines().message(), "add_all_engines: no engine applies to this graph");
}

TEST(CoarseTimerDevice, QuantizesToItsResolution) {
  CoarseTimerDevice device(0.5);
  auto stream = std::move(device.create_stream()).value();
  auto timer = std::move(device.create_timer(*stream)).value();
  EXPECT_DOUBLE_EQ(timer->resolution_ms(), 0.5);
  ASSERT_TRUE(timer->start().is_good());
  ASSERT_TRUE(timer->stop().is_good());
  EXPECT_EQ(*timer->elapsed_ms(), 0.0);
}

}  // namespace
}  // namespace tunekit::graph::test_provider
