// `tunekit tune` and the checks around each measurement: the result check
// against a reference engine (on by default, --no-result-check,
// --result-tolerance) and the wait for a settled machine (--settle-timeout),
// as the ranked JSON reports them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_tool;

// C [24, 20] = relu(A [24, 16] x B [16, 20] + bias [1, 20]), float.
const char* kMatmulBiasRelu = R"([[tensors]]
name = "A"
uid = 1
dims = [24, 16]
[[tensors]]
name = "B"
uid = 2
dims = [16, 20]
[[tensors]]
name = "P"
uid = 3
dims = [24, 20]
virtual = true
[[tensors]]
name = "bias"
uid = 4
dims = [1, 20]
[[tensors]]
name = "S"
uid = 5
dims = [24, 20]
virtual = true
[[tensors]]
name = "C"
uid = 6
dims = [24, 20]
[[operations]]
kind = "matmul"
inputs = { A = "A", B = "B" }
outputs = { C = "P" }
[[operations]]
kind = "pointwise"
inputs = { IN_0 = "P", IN_1 = "bias" }
outputs = { OUT_0 = "S" }
attributes = { mode = "add" }
[[operations]]
kind = "pointwise"
inputs = { IN_0 = "S" }
outputs = { OUT_0 = "C" }
attributes = { mode = "relu" }
)";

class TuneChecksCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-tune-checks-XXXXXX";
    folder = mkdtemp(pattern);
    graph = (folder / "graph.toml").string();
    output = (folder / "overrides.json").string();
    std::ofstream(graph) << kMatmulBiasRelu;
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  tunekit::testing::ToolRun tune(std::vector<std::string> extra) {
    std::vector<std::string> args{"tune",         graph, "--output", output, "--strategy", "fixed_average",
                                  "--iterations", "2",   "--warmup", "0",    "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  }

  std::filesystem::path folder;
  std::string graph, output;
};

TEST_F(TuneChecksCli, EveryCandidateIsCheckedAgainstAReferenceEngineByDefault) {
  auto run = tune({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json candidates = json::parse(run.out)[0]["candidates"];
  int checked = 0;
  for (const json& c : candidates) {
    if (!c["succeeded"].get<bool>()) continue;
    const std::string check = c["result_check"].get<std::string>();
    EXPECT_EQ(check.rfind("agrees with cpu_", 0), 0u) << c["engine_name"] << ": " << check;
    EXPECT_NE(check.find("(largest error "), std::string::npos) << check;
    const double error = c["result_error"].get<double>();
    EXPECT_GE(error, 0.0);
    EXPECT_LE(error, 1e-3) << c["engine_name"];
    EXPECT_GE(c["settle_wait_ms"].get<double>(), 0.0);
    ++checked;
  }
  // The reference engines and at least one library engine run this graph.
  EXPECT_GE(checked, 3) << run.out;
}

TEST_F(TuneChecksCli, NoResultCheckLeavesEveryCandidateUnchecked) {
  auto run = tune({"--no-result-check"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  int succeeded = 0;
  const json candidates = json::parse(run.out)[0]["candidates"];
  for (const json& c : candidates) {
    if (!c["succeeded"].get<bool>()) continue;
    EXPECT_EQ(c["result_check"], "") << c["engine_name"];
    EXPECT_EQ(c["result_error"].get<double>(), -1.0);
    ++succeeded;
  }
  EXPECT_GE(succeeded, 3);
}

TEST_F(TuneChecksCli, AToleranceBelowWhatFloatArithmeticReachesFailsTheCandidatesThatRoundDifferently) {
  // A tolerance of 0 means "per data type"; the smallest positive one asks
  // every engine for the reference's bits. Engines that sum in another order
  // fail with the wrong-result message; at least the reference agrees with itself.
  auto run = tune({"--result-tolerance", "1e-300", "--allow-incomplete"});
  ASSERT_NE(run.exit_code, 2) << run.err;
  int wrong = 0, agreed = 0;
  const json candidates = json::parse(run.out)[0]["candidates"];
  for (const json& c : candidates) {
    const std::string check = c["result_check"].get<std::string>();
    if (check.rfind("wrong result against cpu_", 0) == 0) {
      ++wrong;
      EXPECT_FALSE(c["succeeded"].get<bool>());
      const std::string message = c["error_message"].get<std::string>();
      EXPECT_NE(message.find("tensor 'C' (uid 6): largest error "), std::string::npos) << message;
      EXPECT_NE(message.find(" elements beyond the tolerance 1e-300"), std::string::npos) << message;
      EXPECT_GT(c["result_error"].get<double>(), 1e-300);
    } else if (check.rfind("agrees with", 0) == 0) {
      ++agreed;
    }
  }
  EXPECT_GE(agreed, 1) << run.out;
  EXPECT_GE(wrong, 1) << run.out;
}

TEST_F(TuneChecksCli, BadSettleTimeoutsAndTolerancesAreBadUsage) {
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--settle-timeout", "-1"}, {"--settle-timeout", "600000"}, {"--result-tolerance", "-0.5"}}) {
    auto run = tune(bad);
    EXPECT_EQ(run.exit_code, 2) << bad[0] << " " << bad[1];
    EXPECT_NE(run.err.find(bad[0]), std::string::npos) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(output));
  auto help = run_tool({"tune", "--help"});
  EXPECT_NE(help.out.find("--settle-timeout"), std::string::npos);
  EXPECT_NE(help.out.find("--no-result-check"), std::string::npos);
  EXPECT_NE(help.out.find("--result-tolerance"), std::string::npos);
}

TEST_F(TuneChecksCli, ASettleTimeoutOfZeroNeverWaits) {
  auto run = tune({"--settle-timeout", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json candidates = json::parse(run.out)[0]["candidates"];
  for (const json& c : candidates) {
    EXPECT_EQ(c["settle_wait_ms"].get<double>(), 0.0) << c["engine_name"];
  }
}

TEST_F(TuneChecksCli, KeepUnlessFasterLeavesAStoredWinnerThatIsNotBeatenUntouched) {
  ASSERT_EQ(tune({}).exit_code, 0);
  std::ifstream first(output);
  const std::string stored(std::istreambuf_iterator<char>(first), {});
  auto again = tune({"--keep-unless-faster"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string decision = json::parse(again.out)[0]["stored_winner"].get<std::string>();
  EXPECT_NE(decision.find("the stored winner '"), std::string::npos) << decision;
  std::ifstream second(output);
  const std::string now(std::istreambuf_iterator<char>(second), {});
  if (decision.find(" replaced") == std::string::npos) {
    EXPECT_EQ(now, stored) << decision;  // kept: not rewritten
  } else {
    EXPECT_NE(decision.find(": faster"), std::string::npos) << decision;  // only a significant win replaces it
  }
  EXPECT_NE(again.err.find(decision), std::string::npos);
  auto both = tune({"--keep-unless-faster", "--replace"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

}  // namespace
