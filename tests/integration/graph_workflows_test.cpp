// The three autotune workflows end to end on real CPU engines (plan-spec,
// compiled-plan, manual loop), each ending in an execute() whose output is
// checked against a double-precision reference after poisoning it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "graph_test_provider.hpp"

namespace tunekit::graph::test_provider {
namespace {

class Workflow : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(reg->add_provider(provider).is_good());
    registry = reg;
    handle = std::move(Handle::create(device, registry)).value();
  }
  static AutotuneConfig quick() {
    AutotuneConfig config;
    config.strategy = AutotuneStrategy::FIXED_AVERAGE;
    config.timed_iterations = 3;
    return config;
  }
  static const AutotuneResult& by_id(const std::vector<AutotuneResult>& results, std::int64_t id) {
    auto it = std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.engine_id == id; });
    EXPECT_NE(it, results.end()) << id;
    return *it;
  }
  void execute_and_check(Graph& graph, MatmulProblem& problem, void* workspace) {
    problem.poison();
    ASSERT_TRUE(graph.execute(handle.get(), problem.pack(), workspace).is_good());
    EXPECT_LT(problem.max_relative_error(), 1e-5);
  }

  TestProvider provider;
  std::shared_ptr<const EngineRegistry> registry;
  platform::CpuDevice device;
  std::unique_ptr<Handle> handle;
};

TEST_F(Workflow, PlanSpecPathStandard) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.validate().is_good());
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.add_all_engines().is_good());
  EXPECT_EQ(graph.plan_specs().size(), 9u);
  std::int64_t ws = 0;
  ASSERT_TRUE(graph.get_estimated_max_workspace_size(ws).is_good());
  EXPECT_EQ(ws, 40 * 64 * 4);  // tiled's estimate is the largest
  std::vector<std::byte> workspace(static_cast<std::size_t>(ws));
  std::vector<AutotuneResult> results;
  problem.poison();
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), workspace.data(), ws, quick(), {}, &results).is_good());
  ASSERT_EQ(results.size(), 9u);
  const auto succeeded = std::count_if(results.begin(), results.end(), [](const auto& r) { return r.succeeded; });
  EXPECT_EQ(succeeded, 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(results[i].rank, i);
  for (int i = 6; i < 9; ++i) EXPECT_FALSE(results[i].succeeded);
  EXPECT_NE(by_id(results, kAlwaysFails).error_message.find("failed compile"), std::string::npos);
  EXPECT_NE(by_id(results, kThrows).error_message.find("failed warmup"), std::string::npos);
  // Compiled workspace (1 MiB) exceeds the buffer although the estimate (64 bytes) fitted: skipped, not pre-filtered.
  const AutotuneResult& grows = by_id(results, kWorkspaceGrows);
  EXPECT_NE(grows.error_message.find("exceeds limit"), std::string::npos);
  EXPECT_EQ(grows.workspace_size, 1 << 20);
  EXPECT_EQ(grows.estimated_workspace_size, 64);
  // The 2 ms busy-wait engine cannot win against microsecond matmuls.
  EXPECT_NE(results[0].engine_id, kDelayed);
  EXPECT_EQ(results[5].engine_id, kDelayed);
  EXPECT_GT(results[5].min_time_ms, 1.9);
  execute_and_check(graph, problem, workspace.data());
}

TEST_F(Workflow, PlanSpecPathExhaustivePrimesAndFilters) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  std::vector<EngineConfigInfo> configs;
  ASSERT_TRUE(graph.get_engine_configs(configs).is_good());
  configs.erase(std::remove_if(configs.begin(), configs.end(), [](const auto& c) { return !c.supports_exhaustive; }),
                configs.end());
  ASSERT_EQ(configs.size(), 2u);
  ASSERT_TRUE(graph.add_engine_configs(configs).is_good());
  ASSERT_TRUE(graph.add_engine(kNaive, {{"unroll", 4}}).is_good());
  std::int64_t ws = 0;
  ASSERT_TRUE(graph.get_estimated_max_workspace_size(ws).is_good());
  std::vector<std::byte> workspace(1 << 16);
  ws = static_cast<std::int64_t>(workspace.size());

  AutotuneConfig config = quick();
  config.mode = TuneMode::EXHAUSTIVE;
  std::vector<AutotuneResult> results;
  Error aborted = graph.autotune(handle.get(), problem.pack(), workspace.data(), ws, config, {}, &results);
  EXPECT_EQ(aborted.message(),
            "autotune: priming failed for 'fails_when_primed' (engine id 105): priming plan failed compile: priming is "
            "not implemented");
  EXPECT_EQ(results.size(), 3u);

  config.priming_failure_policy = PrimingFailurePolicy::BENCHMARK_UNPRIMED;
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), workspace.data(), ws, config, {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(by_id(results, kCached).ran_exhaustive);
  EXPECT_GE(provider.counters().cache_entries.load(), 1);
  const AutotuneResult& picky = by_id(results, kFailsWhenPrimed);
  EXPECT_TRUE(picky.succeeded);
  EXPECT_FALSE(picky.ran_exhaustive);
  EXPECT_EQ(picky.exhaustive_not_run_reason, "priming plan failed compile: priming is not implemented");
  EXPECT_FALSE(by_id(results, kNaive).supports_exhaustive);
  EXPECT_EQ(by_id(results, kNaive).knob_settings, (std::vector<KnobSetting>{{"unroll", 4}}));

  config.engine_id_filter = {kCached, 9999};
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), workspace.data(), ws, config, {}, &results).is_good());
  EXPECT_EQ(results[0].engine_id, kCached);
  EXPECT_TRUE(results[0].succeeded);
  EXPECT_NE(results[1].error_message.find("engineIdFilter"), std::string::npos);
  EXPECT_NE(results[2].error_message.find("engineIdFilter"), std::string::npos);
  const int before = provider.counters().executions_of(kCached);
  execute_and_check(graph, problem, workspace.data());
  EXPECT_EQ(provider.counters().executions_of(kCached), before + 1);
}

TEST_F(Workflow, KnobControlledTimeGivesAKnownWinner) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.add_engine_sweep({{kDelayed, {{"delay_us", {3000, 0, 1500}}}, {}}}).is_good());
  ASSERT_EQ(graph.plan_specs().size(), 3u);
  std::vector<AutotuneResult> results;
  AutotuneConfig config;  // RUN_UNTIL_STABLE defaults
  config.max_iterations = 20;
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), nullptr, std::int64_t{0}, config, {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].knob_settings, (std::vector<KnobSetting>{{"delay_us", 0}}));
  EXPECT_EQ(results[1].knob_settings, (std::vector<KnobSetting>{{"delay_us", 1500}}));
  EXPECT_EQ(results[2].knob_settings, (std::vector<KnobSetting>{{"delay_us", 3000}}));
  EXPECT_GE(results[2].min_time_ms, 3.0);
  EXPECT_LE(results[0].iterations_run, 20);
  execute_and_check(graph, problem, nullptr);
}

TEST_F(Workflow, ExecutionFarBelowTheTimerResolutionIsStillTimed) {
  CoarseTimerDevice coarse(0.05);  // 50 microseconds
  auto coarse_handle = std::move(Handle::create(coarse, registry)).value();
  Graph graph;
  MatmulProblem problem(graph, 3, 4, 2);
  ASSERT_TRUE(graph.build_operation_graph(coarse_handle.get()).is_good());
  ASSERT_TRUE(graph.add_engines({kNaive, kDoubleAccumulate}).is_good());
  std::vector<std::byte> workspace(256);
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(coarse_handle.get(), problem.pack(), workspace.data(), std::int64_t{256}, quick(), {}, &results)
                  .is_good());
  for (const auto& r : results) {
    ASSERT_TRUE(r.succeeded) << r.error_message;
    EXPECT_GT(r.min_time_ms, 0.0);
    EXPECT_LT(r.min_time_ms, 0.05);  // per execution, below one tick of the timer
  }
  problem.poison();
  ASSERT_TRUE(graph.execute(coarse_handle.get(), problem.pack(), workspace.data()).is_good());
  EXPECT_LT(problem.max_relative_error(), 1e-5);
}

TEST_F(Workflow, CompiledPlanPath) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.validate().is_good());
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plans({HeuristicMode::FALLBACK}).is_good());
  ASSERT_TRUE(graph.check_support().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  EXPECT_EQ(graph.get_execution_plan_count(), 9);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(3), -1);  // always_fails
  const std::int64_t ws = graph.get_autotune_workspace_size();
  EXPECT_EQ(ws, 1 << 20);
  std::vector<std::byte> workspace(static_cast<std::size_t>(ws));

  AutotuneConfig exhaustive;
  exhaustive.mode = TuneMode::EXHAUSTIVE;
  EXPECT_EQ(graph.autotune(handle.get(), problem.pack(), workspace.data(), exhaustive).code(), ErrorCode::INVALID_VALUE);

  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), workspace.data(), quick(), {}, &results).is_good());
  ASSERT_EQ(results.size(), 9u);
  EXPECT_EQ(std::count_if(results.begin(), results.end(), [](const auto& r) { return r.succeeded; }), 7);
  std::string winner_name;
  ASSERT_TRUE(graph.get_plan_name_at_index(results[0].compiled_plan_index, winner_name).is_good());
  EXPECT_EQ(winner_name, results[0].engine_name);
  const int before = provider.counters().executions_of(results[0].engine_id);
  execute_and_check(graph, problem, workspace.data());
  EXPECT_EQ(provider.counters().executions_of(results[0].engine_id), before + 1);

  // The cuDNN-compatible overload picks a winner too.
  auto pack = problem.pack();
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data()).is_good());
  execute_and_check(graph, problem, workspace.data());
}

TEST_F(Workflow, HeuristicsChoiceBuildsOnlyTheFirstPlan) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plans({HeuristicMode::A}).is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_good());
  EXPECT_EQ(graph.get_execution_plan_count(), 9);
  std::string first;
  ASSERT_TRUE(graph.get_plan_name_at_index(0, first).is_good());
  EXPECT_EQ(first, "always_fails");  // priority 0 under mode A; it fails, so the next one is built
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(0), -1);
  EXPECT_EQ(graph.get_workspace_size_plan_at_index(1), 40 * 8 * 4);  // tiled, priority 1
  for (std::int64_t i = 2; i < 9; ++i) EXPECT_EQ(graph.get_workspace_size_plan_at_index(i), -1) << i;
  std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_autotune_workspace_size()));
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), workspace.data(), quick(), {}, &results).is_good());
  EXPECT_EQ(results[0].engine_id, kTiled);
  EXPECT_EQ(std::count_if(results.begin(), results.end(), [](const auto& r) { return r.succeeded; }), 1);
  execute_and_check(graph, problem, workspace.data());
}

TEST_F(Workflow, ManualLoopSelectsThePlanItMeasuredFastest) {
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  const std::int64_t count = graph.get_execution_plan_count();
  std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_autotune_workspace_size()));
  auto pack = problem.pack();
  std::vector<double> times(static_cast<std::size_t>(count), 1e9);
  for (std::int64_t i = 0; i < count; ++i) {
    if (graph.execute_plan_at_index(handle.get(), pack, workspace.data(), i).is_bad()) continue;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < 5; ++r) ASSERT_TRUE(graph.execute_plan_at_index(handle.get(), pack, workspace.data(), i).is_good());
    times[static_cast<std::size_t>(i)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const auto best = std::min_element(times.begin(), times.end()) - times.begin();
  std::string name;
  ASSERT_TRUE(graph.get_plan_name_at_index(best, name).is_good());
  EXPECT_NE(name, "delayed");
  ASSERT_TRUE(graph.build_plan_at_index(best).is_good());
  const std::int64_t id = registry->find(name)->descriptor().id;
  const int before = provider.counters().executions_of(id);
  execute_and_check(graph, problem, workspace.data());
  EXPECT_EQ(provider.counters().executions_of(id), before + 1);  // execute() ran the selected index
}

}  // namespace
}  // namespace tunekit::graph::test_provider
