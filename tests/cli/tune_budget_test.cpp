// `tunekit tune --time-budget`: candidates not yet timed when the budget runs
// out are not measured, the shape's winner is stored with "complete": false,
// later shapes are left, and the same command run again continues: it retunes
// what is incomplete or missing and keeps what is complete.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_program;

class TuneBudgetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-tune-budget-XXXXXX";
    folder = mkdtemp(pattern);
    graph = (folder / "relu.toml").string();
    overrides = (folder / "overrides.json").string();
    std::ofstream(graph) << tunekit::testing::kReluGraph;
  }
  void TearDown() override {
    unsetenv("TUNEKIT_TEST_DELAY_A_US");
    std::filesystem::remove_all(folder);
  }
  tunekit::testing::ToolRun tune(const std::string& budget) {
    return run_program(TUNEKIT_CHECK_DRIVER_PATH,
                       {"tune", graph, "--output", overrides, "--strategy", "fixed_average", "--iterations", "4",
                        "--warmup", "1", "--settle-timeout", "0", "--time-budget", budget, "--json"});
  }
  json stored() {
    std::ifstream in(overrides);
    return json::parse(in)["engine_overrides"];
  }
  std::filesystem::path folder;
  std::string graph, overrides;
};

TEST_F(TuneBudgetCli, ARunOutOfTimeStoresAnIncompleteWinnerAndTheNextRunContinues) {
  // relu_a (measured first) takes 100 ms an execution: its 5 executions
  // outlast a budget of 0.3 s, so relu_b is never timed.
  setenv("TUNEKIT_TEST_DELAY_A_US", "100000", 1);
  auto first = tune("0.3");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const json shapes = json::parse(first.out);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_TRUE(shapes[0]["budget_spent"].get<bool>());
  ASSERT_EQ(shapes[0]["candidates"].size(), 2u);
  EXPECT_EQ(shapes[0]["candidates"][0]["engine_name"], "relu_a");
  EXPECT_EQ(shapes[0]["candidates"][1]["engine_name"], "relu_b");
  EXPECT_EQ(shapes[0]["candidates"][1]["error_message"], "not measured: the time budget ran out");
  EXPECT_TRUE(shapes[1]["candidates"].empty());
  EXPECT_EQ(shapes[1]["not_tuned"], "not tuned: the time budget of 0.3 s ran out");
  EXPECT_NE(first.err.find("the time budget of 0.3 s ran out: 2 of 2 shapes not tuned or tuned in part"),
            std::string::npos)
      << first.err;
  json entries = stored();
  ASSERT_EQ(entries.size(), 1u) << entries;
  EXPECT_EQ(entries[0]["engine_name"], "relu_a");
  EXPECT_EQ(entries[0]["autotune_metadata"]["complete"], false);

  // Run again with time to spare: the incomplete shape is tuned again (now
  // relu_b wins), the missing one is tuned, both complete.
  unsetenv("TUNEKIT_TEST_DELAY_A_US");
  setenv("TUNEKIT_TEST_DELAY_A_US", "2000", 1);
  auto second = tune("600");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  for (const json& s : json::parse(second.out)) {
    EXPECT_FALSE(s["budget_spent"].get<bool>()) << s;
    EXPECT_EQ(s["candidates"].size(), 2u) << s;
  }
  entries = stored();
  ASSERT_EQ(entries.size(), 2u) << entries;
  for (const json& e : entries) {
    EXPECT_EQ(e["engine_name"], "relu_b") << e;
    EXPECT_FALSE(e["autotune_metadata"].contains("complete")) << e;
  }

  // A third run finds both complete and keeps them, measuring nothing.
  const std::string before = tunekit::testing::read_text(overrides);
  auto third = tune("600");
  ASSERT_EQ(third.exit_code, 0) << third.err;
  for (const json& s : json::parse(third.out)) {
    EXPECT_TRUE(s["candidates"].empty()) << s;
    EXPECT_EQ(s["not_tuned"].get<std::string>().rfind("already tuned: 'relu_b' (entry ", 0), 0u) << s;
  }
  EXPECT_EQ(tunekit::testing::read_text(overrides), before);
}

TEST_F(TuneBudgetCli, IsolatedCandidatesStopAtTheBudgetToo) {
  setenv("TUNEKIT_TEST_DELAY_A_US", "100000", 1);
  auto run = run_program(TUNEKIT_CHECK_DRIVER_PATH,
                         {"tune", graph, "--output", overrides, "--strategy", "fixed_average", "--iterations", "4",
                          "--shape-set", "base", "--isolate", "--time-budget", "0.3", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json shape = json::parse(run.out)[0];
  EXPECT_TRUE(shape["budget_spent"].get<bool>());
  EXPECT_EQ(shape["candidates"][1]["error_message"], "not measured: the time budget ran out") << shape;
  EXPECT_EQ(stored()[0]["autotune_metadata"]["complete"], false);
}

}  // namespace
