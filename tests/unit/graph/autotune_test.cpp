// autotune(): preconditions, the one-result-per-candidate coverage with its
// dispositions, ranking, filtering and the winner that execute() runs.
#include <gtest/gtest.h>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

class Autotune : public GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    add(behaviour(1, "slow", 4.0));
    add(behaviour(2, "fast", 1.0));
    add(behaviour(3, "medium", 2.0));
  }
  AutotuneConfig fixed(int iterations = 4) {
    AutotuneConfig config;
    config.strategy = AutotuneStrategy::FIXED_AVERAGE;
    config.timed_iterations = iterations;
    return config;
  }
  std::int64_t ws() const { return static_cast<std::int64_t>(workspace.size()); }
};

TEST_F(Autotune, PreconditionsAreCheckedBeforeAnythingRuns) {
  build();
  std::vector<AutotuneResult> results;
  EXPECT_EQ(graph.autotune(nullptr, pack, workspace.data(), ws()).message(), "autotune: invalid handle (null)");
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws()).message(),
            "autotune: no autotuning candidates (add plan specs with add_engine*() or build plans with "
            "create_execution_plans() and build_plans())");
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig bad;
  bad.window_size = 1;
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), ws(), bad).code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(graph.autotune(handle.get(), pack, workspace.data(), ws(), bad).message().find("window_size"), std::string::npos);
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), std::int64_t{-1}).message(),
            "autotune: workspace_size must not be negative, got -1");
  EXPECT_EQ(graph.autotune(handle.get(), VariantPack{}, workspace.data(), ws()).message(),
            "autotune: the variant pack is empty");
  EXPECT_EQ(graph.autotune(handle.get(), VariantPack{{2, b_data.data()}}, workspace.data(), ws()).message(),
            "autotune: the variant pack is missing tensor uids [1, 3]");
  EXPECT_EQ(graph.autotune(handle.get(), pack, nullptr, std::int64_t{64}).message(),
            "autotune: the workspace is null but workspace_size is 64");
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data()).message(),
            "autotune: this overload is for compiled plans only, but the graph has plan specs; pass a workspace size");
  EXPECT_EQ(graph.autotune(handle.get(), pack, workspace.data(), AutotuneConfig{}, {}, &results).code(),
            ErrorCode::BAD_STATE);
  for (const auto* engine : {engines[0].get(), engines[1].get(), engines[2].get()}) {
    EXPECT_EQ(engine->counters().compiles, 0);
  }
  Graph unbuilt;
  EXPECT_EQ(unbuilt.autotune(handle.get(), pack, workspace.data(), ws()).message(),
            "autotune: build_operation_graph() has not been called");
}

TEST_F(Autotune, ExtraVariantPackUidsAreAccepted) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  VariantPack extra = pack;
  extra[42] = a_data.data();
  EXPECT_TRUE(graph.autotune(handle.get(), extra, workspace.data(), ws(), fixed()).is_good());
}

TEST_F(Autotune, PlanSpecPathRanksByMinTimeAndExecutesTheWinner) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].engine_name, "fast");
  EXPECT_EQ(results[1].engine_name, "medium");
  EXPECT_EQ(results[2].engine_name, "slow");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(results[i].rank, i);
    EXPECT_TRUE(results[i].succeeded);
    EXPECT_TRUE(results[i].error_message.empty());
    EXPECT_EQ(results[i].iterations_run, 4);
    EXPECT_TRUE(results[i].converged);
    EXPECT_EQ(results[i].strategy_used, AutotuneStrategy::FIXED_AVERAGE);
    EXPECT_EQ(results[i].workspace_size, 0);
  }
  EXPECT_DOUBLE_EQ(results[0].min_time_ms, 1.0);
  EXPECT_DOUBLE_EQ(results[0].avg_time_ms, 1.0);
  EXPECT_DOUBLE_EQ(results[0].stddev_ms, 0.0);
  EXPECT_DOUBLE_EQ(results[2].min_time_ms, 4.0);
  // Compiled in spec order: slow 0, fast 1, medium 2.
  EXPECT_EQ(results[0].compiled_plan_index, 1);
  const int before = engines[1]->counters().executions;
  ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[1]->counters().executions, before + 1);
}

// "slow" takes 40 ms of real time to compile: its compile time says so,
// its timed executions do not.
void expect_compile_time_apart(const std::vector<AutotuneResult>& results) {
  ASSERT_EQ(results.size(), 3u);
  for (const AutotuneResult& r : results) {
    SCOPED_TRACE(r.engine_name);
    if (r.engine_name == "slow") {
      EXPECT_GE(r.compile_time_ms, 40.0);
      EXPECT_LT(r.compile_time_ms, 10000.0);
      EXPECT_DOUBLE_EQ(r.min_time_ms, 4.0);  // the simulated execution alone
    } else {
      EXPECT_GE(r.compile_time_ms, 0.0);
      EXPECT_LT(r.compile_time_ms, 40.0);
    }
  }
}

TEST_F(Autotune, CompileTimeIsReportedApartFromTheTimedExecutionsOnThePlanSpecPath) {
  engines[0]->behaviour().compile_sleep_ms = 40;
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), {}, &results).is_good());
  expect_compile_time_apart(results);
}

TEST_F(Autotune, CompileTimeIsReportedApartFromTheTimedExecutionsOnTheCompiledPlanPath) {
  engines[0]->behaviour().compile_sleep_ms = 40;
  build();
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), {}, &results).is_good());
  expect_compile_time_apart(results);
}

TEST_F(Autotune, EveryCandidateGetsExactlyOneResultWithItsDisposition) {
  FakeBehaviour deselected = behaviour(10, "deselected", 0.5);
  add(deselected);
  FakeBehaviour filtered = behaviour(11, "filtered_out", 0.5);
  add(filtered);
  FakeBehaviour too_big = behaviour(12, "too_big", 0.5);
  too_big.estimate = [](const KnobValues&) { return std::int64_t{100}; };
  too_big.workspace = [](const KnobValues&) { return std::int64_t{5000}; };
  add(too_big);
  FakeBehaviour no_compile = behaviour(13, "no_compile");
  no_compile.fail_compile = true;
  add(no_compile);
  FakeBehaviour no_finalize = behaviour(14, "no_finalize");
  no_finalize.fail_finalize = true;
  add(no_finalize);
  FakeBehaviour no_run = behaviour(15, "no_run");
  no_run.fail_execute = true;
  add(no_run);
  FakeBehaviour thrower = behaviour(16, "thrower");
  thrower.throw_execute = true;
  add(thrower);
  FakeBehaviour ws_barred = behaviour(17, "ws_barred", 0.5);
  ws_barred.workspace = [](const KnobValues&) { return std::int64_t{7000}; };
  add(ws_barred);
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  ASSERT_TRUE(graph.add_engine_configs({EngineConfigInfo{404, "ghost", {}, false, 0}}).is_good());
  graph.deselect_engines(std::vector<std::string>{"deselected"}).deselect_workspace_greater_than(6000);
  AutotuneConfig config = fixed(3);
  config.engine_id_filter = {1, 2, 3, 10, 12, 13, 14, 15, 16, 17, 404, 9999};
  std::vector<AutotuneResult> results;
  LogCapture logs;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), std::int64_t{4096}, config, {}, &results).is_good());
  ASSERT_EQ(results.size(), 12u);

  EXPECT_EQ(results[0].engine_name, "fast");
  EXPECT_EQ(results[1].engine_name, "medium");
  EXPECT_EQ(results[2].engine_name, "slow");
  for (std::size_t i = 3; i < results.size(); ++i) {
    EXPECT_FALSE(results[i].succeeded) << results[i].engine_name;
    EXPECT_EQ(results[i].rank, -1) << results[i].engine_name;
  }
  auto expect = [&](std::int64_t id, const std::string& words, std::int64_t workspace_size, int plan_index = -1) {
    const AutotuneResult* r = find(results, id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_NE(r->error_message.find(words), std::string::npos) << id << ": " << r->error_message;
    EXPECT_EQ(r->workspace_size, workspace_size) << id;
    EXPECT_EQ(r->compiled, workspace_size >= 0) << id;
    EXPECT_EQ(r->compiled_plan_index, plan_index) << id;
  };
  expect(10, "Plan barred", -1);
  expect(11, "engineIdFilter", -1);
  expect(12, "exceeds limit", 5000);
  expect(13, "failed compile", -1);
  expect(14, "failed finalize", -1);
  expect(15, "failed warmup", 0, 4);
  expect(16, "threw during execution: kernel exploded", 0, 5);
  expect(17, "Plan barred", 7000);
  EXPECT_EQ(find(results, 17)->error_message,
            "Plan barred: workspace 7000 bytes is greater than deselect_workspace_greater_than(6000)");
  expect(404, "failed compile", -1);
  EXPECT_EQ(find(results, 12)->estimated_workspace_size, 100);
  EXPECT_EQ(find(results, 12)->error_message, "skipped: compiled workspace 5000 bytes exceeds limit 4096 bytes (estimate 100 bytes)");
  EXPECT_EQ(find(results, 404)->error_message, "failed compile: not supported: engine id 404 is not registered");
  // The estimate fitted, so skipping the plan after compiling it is worth a warning.
  EXPECT_EQ(logs.count_containing("autotune: 'too_big' skipped: compiled workspace 5000 bytes exceeds limit 4096 bytes",
                                  log::Level::WARN),
            1);
  EXPECT_EQ(engines[3]->counters().compiles, 0);  // deselected engines are never compiled
  EXPECT_EQ(engines[4]->counters().compiles, 0);  // nor filtered ones
}

TEST_F(Autotune, NoCandidatesLeftAfterFilteringIsAnInvalidValueWithResults) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  graph.deselect_engines(std::vector<std::int64_t>{1});
  AutotuneConfig config = fixed();
  config.engine_id_filter = {1};
  std::vector<AutotuneResult> results;
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results);
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(error.message(), "autotune: no candidates remain after filtering (1 barred by deselect_*, 2 excluded by engineIdFilter)");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_NE(find(results, 1)->error_message.find("Plan barred"), std::string::npos);
  EXPECT_NE(find(results, 2)->error_message.find("engineIdFilter"), std::string::npos);
  for (const auto& r : results) EXPECT_EQ(r.workspace_size, -1);
}

TEST_F(Autotune, FilterIsASubsetOperation) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config = fixed();
  config.engine_id_filter = {3, 1, 777};
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].engine_name, "medium");
  EXPECT_EQ(results[1].engine_name, "slow");
  EXPECT_EQ(results[2].engine_name, "fast");
  EXPECT_FALSE(results[2].succeeded);
  config.engine_id_filter = {777};
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results);
  EXPECT_EQ(error.message(), "autotune: no candidates remain after filtering (3 excluded by engineIdFilter)");
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) EXPECT_NE(r.error_message.find("engineIdFilter"), std::string::npos);
}

TEST_F(Autotune, WorkspaceDeselectionAfterCompilationLeavingNothingIsAnInvalidValueWithTheSummary) {
  for (auto& e : engines) e->behaviour().workspace = [](const KnobValues&) { return std::int64_t{7000}; };
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  graph.deselect_workspace_greater_than(6000);
  std::vector<AutotuneResult> results;
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), {}, &results);
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(error.message(),
            "autotune: no candidates remain after filtering (3 barred by deselect_workspace_greater_than after "
            "compilation)");
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_EQ(r.error_message,
              "Plan barred: workspace 7000 bytes is greater than deselect_workspace_greater_than(6000)");
    EXPECT_TRUE(r.compiled);
    EXPECT_EQ(r.workspace_size, 7000);
    EXPECT_EQ(r.rank, -1);
  }
  for (const auto& e : engines) {
    EXPECT_EQ(e->counters().compiles, 1);
    EXPECT_EQ(e->counters().executions, 0);
  }
  EXPECT_EQ(graph.execute(handle.get(), pack, workspace.data()).code(), ErrorCode::BAD_STATE);
}

TEST_F(Autotune, SummaryAfterCompilationNamesEveryExclusionThatOccurred) {
  engines[2]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{7000}; };
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  graph.deselect_engines(std::vector<std::string>{"slow"}).deselect_workspace_greater_than(6000);
  AutotuneConfig config = fixed();
  config.engine_id_filter = {1, 3};
  std::vector<AutotuneResult> results;
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results);
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(error.message(),
            "autotune: no candidates remain after filtering (1 barred by deselect_*, 1 excluded by engineIdFilter, 1 "
            "barred by deselect_workspace_greater_than after compilation)");
  EXPECT_EQ(results.size(), 3u);
}

TEST_F(Autotune, CompileFailuresBesideWorkspaceDeselectionAreFailuresNotFiltering) {
  engines[0]->behaviour().fail_compile = true;
  engines[1]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{7000}; };
  engines[2]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{7000}; };
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  graph.deselect_workspace_greater_than(6000);
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed());
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message().rfind("autotune: every candidate failed (3 candidates; first: ", 0), 0u) << error.message();
}

TEST_F(Autotune, EveryCandidateFailingIsAnError) {
  for (auto& e : engines) e->behaviour().fail_execute = true;
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  std::vector<AutotuneResult> results;
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), {}, &results);
  EXPECT_EQ(error.code(), ErrorCode::EXECUTION_FAILED);
  EXPECT_EQ(error.message().rfind("autotune: every candidate failed (3 candidates; first: failed warmup", 0), 0u);
  EXPECT_EQ(results.size(), 3u);
  EXPECT_EQ(graph.execute(handle.get(), pack, workspace.data()).code(), ErrorCode::BAD_STATE);
}

TEST_F(Autotune, CustomRankingAndItsFallback) {
  engines[0]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{10}; };
  engines[1]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{30}; };
  engines[2]->behaviour().workspace = [](const KnobValues&) { return std::int64_t{20}; };
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneConfig config = fixed();
  config.ranking_fn = [](std::vector<AutotuneResult>& rs) {
    std::sort(rs.begin(), rs.end(), [](const auto& x, const auto& y) { return x.workspace_size < y.workspace_size; });
  };
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].engine_name, "slow");
  EXPECT_EQ(results[0].rank, 0);
  EXPECT_EQ(results[2].engine_name, "fast");
  EXPECT_EQ(results[2].rank, 2);
  const int before = engines[0]->counters().executions;
  ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(engines[0]->counters().executions, before + 1);  // the custom winner runs

  LogCapture logs;
  config.ranking_fn = [](std::vector<AutotuneResult>&) { throw std::logic_error("no ranking today"); };
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), ws(), config, {}, &results).is_good());
  EXPECT_EQ(results[0].engine_name, "fast");
  EXPECT_EQ(logs.count_containing("autotune: ranking by min_time_ms instead: the ranking function threw: no ranking today",
                                  log::Level::WARN),
            1);
}

TEST_F(Autotune, AnOverrideFileThatCannotBeWrittenIsAnErrorButTheWinnerIsSelected) {
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  AutotuneStorageConfig storage;
  storage.file_path = "/proc/self/status/out.json";  // the parent is a regular file
  Error error = graph.autotune(handle.get(), pack, workspace.data(), ws(), fixed(), storage);
  EXPECT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
}

}  // namespace
}  // namespace tunekit::graph::testing
