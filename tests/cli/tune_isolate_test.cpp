// `tunekit tune --isolate`: each candidate in a process of its own, so that
// engines that crash, abort or hang (the faulty test plugin) fail alone with
// their signal or the timeout, a wrong one fails the result check, and the
// others are ranked and the winner stored as without isolation.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_tool;

// C [24, 20] = A [24, 16] x B [16, 20], float: the faulty engines claim it.
const char* kMatmul = R"([[tensors]]
name = "A"
uid = 1
dims = [24, 16]
[[tensors]]
name = "B"
uid = 2
dims = [16, 20]
[[tensors]]
name = "C"
uid = 3
dims = [24, 20]
[[operations]]
kind = "matmul"
inputs = { A = "A", B = "B" }
outputs = { C = "C" }
)";

class TuneIsolateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-tune-isolate-XXXXXX";
    folder = mkdtemp(pattern);
    graph = (folder / "graph.toml").string();
    output = (folder / "overrides.json").string();
    std::ofstream(graph) << kMatmul;
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  tunekit::testing::ToolRun tune(std::vector<std::string> extra) {
    std::vector<std::string> args{"tune",         graph, "--output", output, "--strategy", "fixed_average",
                                  "--iterations", "3",   "--warmup", "1",    "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  }
  std::map<std::string, json> by_engine(const std::string& out) {
    std::map<std::string, json> found;
    const json candidates = json::parse(out)[0]["candidates"];
    for (const json& c : candidates) {
      if (c["knobs"].empty()) found[c["engine_name"].get<std::string>()] = c;
    }
    return found;
  }

  std::filesystem::path folder;
  std::string graph, output;
};

TEST_F(TuneIsolateCli, CrashingAbortingAndHangingCandidatesFailAloneAndTheOthersAreRanked) {
  auto run = tune({"--isolate", "--candidate-timeout", "5", "--plugin", TUNEKIT_TEST_PLUGIN_FAULTY});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::map<std::string, json> c = by_engine(run.out);
  ASSERT_TRUE(c.count("PLUGIN_MATMUL_CRASHES")) << run.out;
  EXPECT_FALSE(c["PLUGIN_MATMUL_CRASHES"]["succeeded"].get<bool>());
  EXPECT_EQ(c["PLUGIN_MATMUL_CRASHES"]["error_message"],
            "isolated candidate killed by signal 11 (Segmentation fault)");
  EXPECT_FALSE(c["PLUGIN_MATMUL_ABORTS"]["succeeded"].get<bool>());
  EXPECT_EQ(c["PLUGIN_MATMUL_ABORTS"]["error_message"], "isolated candidate killed by signal 6 (Aborted)");
  EXPECT_FALSE(c["PLUGIN_MATMUL_HANGS"]["succeeded"].get<bool>());
  EXPECT_EQ(c["PLUGIN_MATMUL_HANGS"]["error_message"], "isolated candidate timed out after 5 s");
  // Fast but wrong: the child's result check fails it, with its reason.
  EXPECT_FALSE(c["PLUGIN_MATMUL_WRONG"]["succeeded"].get<bool>());
  EXPECT_EQ(c["PLUGIN_MATMUL_WRONG"]["error_message"].get<std::string>().rfind("wrong result against cpu_", 0), 0u)
      << c["PLUGIN_MATMUL_WRONG"];
  // Every other engine ran in its own process and is ranked as usual.
  int succeeded = 0, ranked = 0;
  const json candidates = json::parse(run.out)[0]["candidates"];
  for (const json& candidate : candidates) {
    if (!candidate["succeeded"].get<bool>()) continue;
    ++succeeded;
    EXPECT_EQ(candidate["rank"].get<int>(), ranked++);
    EXPECT_GT(candidate["min_time_ms"].get<double>(), 0.0);
    EXPECT_EQ(candidate["samples_ms"].size(), 3u) << candidate;
    EXPECT_EQ(candidate["result_check"].get<std::string>().rfind("agrees with cpu_", 0), 0u) << candidate;
  }
  EXPECT_GE(succeeded, 3) << run.out;
  const json winner = json::parse(run.out)[0]["candidates"][0];
  ASSERT_TRUE(winner["succeeded"].get<bool>());
  EXPECT_EQ(winner["engine_name"].get<std::string>().rfind("PLUGIN_", 0), std::string::npos);
  // The parent wrote the winner, as tune without isolation does.
  std::ifstream file(output);
  const json overrides = json::parse(file);
  ASSERT_EQ(overrides["engine_overrides"].size(), 1u) << overrides;
  EXPECT_EQ(overrides["engine_overrides"][0]["engine_name"], winner["engine_name"]);
  // Each failure is also said on standard error as it happens.
  EXPECT_NE(run.err.find("candidate 'PLUGIN_MATMUL_HANGS' defaults failed in its process: timed out after 5 s"),
            std::string::npos)
      << run.err;
}

TEST_F(TuneIsolateCli, WithoutIsolationTheFirstCrashingCandidateEndsTheWholeRun) {
  // What --isolate is for: the same tune in one process dies with the engine.
  auto run = tune({"--plugin", TUNEKIT_TEST_PLUGIN_FAULTY});
  EXPECT_EQ(run.signal, SIGSEGV) << run.exit_code << run.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST_F(TuneIsolateCli, IsolatedResultsMatchTheInProcessCandidatesAndKnobSweeps) {
  auto isolated = tune({"--isolate"});
  ASSERT_EQ(isolated.exit_code, 0) << isolated.err;
  auto together = tune({});
  ASSERT_EQ(together.exit_code, 0) << together.err;
  const json a = json::parse(isolated.out)[0], b = json::parse(together.out)[0];
  ASSERT_EQ(a["candidates"].size(), b["candidates"].size());
  // The same candidates (engine and knobs), whatever their order by time.
  std::multiset<std::string> in_a, in_b;
  for (const json& c : a["candidates"]) in_a.insert(c["engine_name"].dump() + c["knobs"].dump());
  for (const json& c : b["candidates"]) in_b.insert(c["engine_name"].dump() + c["knobs"].dump());
  EXPECT_EQ(in_a, in_b);
  EXPECT_EQ(a["knob_sweeps"], b["knob_sweeps"]);
}

TEST_F(TuneIsolateCli, IsolationCannotRaceAndAChildCommandLineNamingAnotherEngineIsRefused) {
  auto race = run_tool({"tune", graph, "--output", output, "--isolate", "--strategy", "race"});
  EXPECT_EQ(race.exit_code, 2);
  EXPECT_NE(race.err.find("--isolate"), std::string::npos) << race.err;
  EXPECT_NE(race.err.find("race"), std::string::npos) << race.err;
  // A child's hidden options must name the engine at that index.
  auto child = tune({"--isolated-candidate", "0", "--isolated-engine", "123456789"});
  EXPECT_EQ(child.exit_code, 2) << child.err;
  EXPECT_NE(child.err.find("is not engine 123456789"), std::string::npos) << child.err;
  EXPECT_FALSE(std::filesystem::exists(output));
  auto timeout = tune({"--isolate", "--candidate-timeout", "0"});
  EXPECT_EQ(timeout.exit_code, 2) << timeout.err;
}

}  // namespace
