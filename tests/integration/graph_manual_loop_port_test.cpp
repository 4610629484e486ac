// The manual benchmarking loop of the autotune specification (Appendix A,
// hipDNN column), ported with only names changed: hip* calls become the
// small shims below over tunekit's CPU device, and the graph and handle
// types are tunekit's. The loop body itself is as the specification has it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "graph_test_provider.hpp"

// The ported code ignores some returned Errors, as the original does.
#pragma GCC diagnostic ignored "-Wunused-result"

namespace tunekit::graph::test_provider {
namespace {

// Shims for the runtime calls the loop makes (hipMalloc, hipEvent*, ...).
struct Event {
  std::chrono::steady_clock::time_point at;
};
using event_t = Event*;
using stream_t = platform::Stream*;
std::vector<std::unique_ptr<Event>> g_events;
std::vector<std::vector<std::byte>> g_allocations;

void eventCreate(event_t* event) {
  g_events.push_back(std::make_unique<Event>());
  *event = g_events.back().get();
}
void eventRecord(event_t event, stream_t) { event->at = std::chrono::steady_clock::now(); }
void eventSynchronize(event_t) {}
void eventElapsedTime(float* ms, event_t start, event_t stop) {
  *ms = std::chrono::duration<float, std::milli>(stop->at - start->at).count();
}
void deviceSynchronize() {}
void deviceMalloc(void** pointer, std::int64_t bytes) {
  g_allocations.emplace_back(static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1)));
  *pointer = g_allocations.back().data();
}
void deviceFree(void*) {}

TEST(ManualLoopPort, SpecificationLoopRunsAndExecuteUsesTheSelectedPlan) {
  TestProvider provider;
  auto registry = std::make_shared<EngineRegistry>();
  ASSERT_TRUE(registry->add_provider(provider).is_good());
  platform::CpuDevice device;
  auto owned_handle = std::move(Handle::create(device, registry)).value();
  Handle* handle = owned_handle.get();
  stream_t stream = &handle->stream();
  Graph graph;
  MatmulProblem problem(graph);
  std::unordered_map<int64_t, void*> variant_pack = problem.pack();

  // ---- The specification's loop, names changed only.
  graph.validate();
  graph.build_operation_graph(handle);
  graph.create_execution_plans({HeuristicMode::FALLBACK});
  graph.check_support();
  graph.build_plans(BuildPlanPolicy::ALL);
  auto plan_count = graph.get_execution_plan_count();
  // Find max workspace across all plans
  int64_t ws = 0;
  for (int i = 0; i < plan_count; i++)
    ws = std::max(ws, graph.get_workspace_size_plan_at_index(i));
  void* workspace;
  deviceMalloc(&workspace, ws);
  // Benchmark each plan
  event_t start, stop;
  eventCreate(&start);
  eventCreate(&stop);
  std::vector times(plan_count, 10.0f);
  for (int i = 0; i < plan_count; i++) {
    // Warmup
    auto err = graph.execute_plan_at_index(
        handle, variant_pack, workspace, i);
    if (err.is_bad()) continue;
    deviceSynchronize();
    // Timed iterations
    eventRecord(start, stream);
    for (int iter = 0; iter < 10; iter++)
      graph.execute_plan_at_index(
          handle, variant_pack, workspace, i);
    eventRecord(stop, stream);
    eventSynchronize(stop);
    float ms;
    eventElapsedTime(&ms, start, stop);
    times[i] = ms / 10.0f;
  }
  // Select winner
  auto best = std::min_element(
      times.begin(), times.end());
  auto idx = std::distance(times.begin(), best);
  graph.build_plan_at_index(idx);
  problem.poison();
  graph.execute(handle, variant_pack, workspace);
  deviceFree(workspace);
  // ---- End of the ported loop.

  EXPECT_EQ(plan_count, 9);
  EXPECT_EQ(ws, 1 << 20);
  EXPECT_FLOAT_EQ(times[3], 10.0f);  // always_fails: never built, keeps its initial time
  EXPECT_FLOAT_EQ(times[6], 10.0f);  // throws: warm-up failed
  EXPECT_GT(times[7], 1.9f);         // delayed: 2 ms per execution
  std::string name;
  ASSERT_TRUE(graph.get_plan_name_at_index(idx, name).is_good());
  EXPECT_NE(name, "delayed");
  EXPECT_LT(problem.max_relative_error(), 1e-5);
  EXPECT_EQ(provider.counters().executions_of(registry->find(name)->descriptor().id), 1 + 10 + 1);
}

}  // namespace
}  // namespace tunekit::graph::test_provider
