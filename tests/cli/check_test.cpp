// `tunekit check`: a stored winner that stays the fastest is unchanged, one a
// much faster engine now beats fails the check beyond the margin, one that
// fails is unusable, a shape with no entry is reported, and the file is never
// written. The check driver's engines run at speeds set by the environment.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_program;
using tunekit::testing::ScopedEnvironment;

class CheckCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-check-XXXXXX";
    folder = mkdtemp(pattern);
    graph = (folder / "relu.toml").string();
    overrides = (folder / "overrides.json").string();
    std::ofstream(graph) << tunekit::testing::kReluGraph;
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  static std::vector<std::string> timing(const char* iterations = "8") {
    return {"--strategy", "fixed_average", "--iterations", iterations, "--warmup", "1", "--settle-timeout", "0"};
  }
  tunekit::testing::ToolRun tune() {
    std::vector<std::string> args{"tune", graph, "--output", overrides};
    for (const std::string& a : timing()) args.push_back(a);
    return run_program(TUNEKIT_CHECK_DRIVER_PATH, args);
  }
  tunekit::testing::ToolRun check(std::vector<std::string> extra = {}, const char* iterations = "8") {
    std::vector<std::string> args{"check", overrides, "--graphs", graph};
    for (const std::string& a : timing(iterations)) args.push_back(a);
    args.insert(args.end(), extra.begin(), extra.end());
    return run_program(TUNEKIT_CHECK_DRIVER_PATH, args);
  }

  std::filesystem::path folder;
  std::string graph, overrides;
};

TEST_F(CheckCli, AStoredWinnerThatIsStillTheFastestIsUnchangedAndTheFileIsNotWritten) {
  ScopedEnvironment slow_b({{"TUNEKIT_TEST_DELAY_B_US", "2000"}});
  ASSERT_EQ(tune().exit_code, 0);
  const std::string before = read_text(overrides);
  auto run = check({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json shapes = json::parse(run.out);
  ASSERT_EQ(shapes.size(), 2u);  // base and wide
  for (const json& s : shapes) {
    EXPECT_EQ(s["outcome"], "unchanged") << s;
    EXPECT_EQ(s["stored"]["engine_name"], "relu_a");
    EXPECT_EQ(s["fastest"]["engine_name"], "relu_a");
    EXPECT_TRUE(s["comparison"].is_null());
  }
  EXPECT_EQ(read_text(overrides), before);
  EXPECT_NE(run.err.find("2 shapes: 2 unchanged, 0 changed within the margin, 0 slower beyond it"),
            std::string::npos)
      << run.err;
}

TEST_F(CheckCli, AStoredWinnerNowMuchSlowerThanTheNewFastestFailsBeyondTheMargin) {
  {
    ScopedEnvironment slow_b({{"TUNEKIT_TEST_DELAY_B_US", "2000"}});
    ASSERT_EQ(tune().exit_code, 0);
  }
  const std::string before = read_text(overrides);
  ScopedEnvironment slow_a({{"TUNEKIT_TEST_DELAY_A_US", "2000"}});
  auto run = check({"--shape-set", "base"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("slower     " + graph + " [base]: 'relu_a' defaults "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" -> 'relu_b' defaults "), std::string::npos) << run.out;
  // The tune's verdict is checked by a race of the two, whose samples decide.
  EXPECT_NE(run.out.find(": faster (tie band 2%) (head to head, 10 and 10 samples); significantly beyond the 5% margin"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(read_text(overrides), before);
  // The same as JSON: the new fastest against the stored, ratio far below 1.
  auto as_json = check({"--shape-set", "base", "--json"});
  EXPECT_EQ(as_json.exit_code, 1);
  const json s = json::parse(as_json.out)[0];
  EXPECT_EQ(s["outcome"], "slower");
  EXPECT_EQ(s["stored"]["engine_name"], "relu_a");
  EXPECT_EQ(s["fastest"]["engine_name"], "relu_b");
  EXPECT_LT(s["comparison"]["ratio_high"].get<double>(), 0.5) << s;
  EXPECT_EQ(s["against_margin"]["verdict"], "faster");
  EXPECT_TRUE(s["head_to_head"].get<bool>());
}

TEST_F(CheckCli, ASignificantlyFasterNewWinnerWithinTheMarginIsReportedWithoutFailing) {
  {
    ScopedEnvironment slow_b({{"TUNEKIT_TEST_DELAY_B_US", "2000"}});
    ASSERT_EQ(tune().exit_code, 0);
  }
  // relu_b now takes about two thirds of relu_a's time: faster, but not by
  // more than a margin of 100% (a ratio below 1/2). Milliseconds, so that
  // the sleeps' wake-up jitter (tens of microseconds) cannot hide the
  // difference.
  ScopedEnvironment close({{"TUNEKIT_TEST_DELAY_A_US", "3000"}, {"TUNEKIT_TEST_DELAY_B_US", "2000"}});
  // More samples than the other checks: a slow wake-up or two among eight
  // samples widened the interval past 1 on a shared machine.
  auto run = check({"--shape-set", "base", "--margin", "100"}, "24");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("changed    " + graph + " [base]: 'relu_a' defaults "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("; not shown beyond the 100% margin"), std::string::npos) << run.out;
}

TEST_F(CheckCli, AStoredWinnerThatFailsIsUnusableAndAShapeWithoutAnEntryIsReported) {
  {
    ScopedEnvironment slow_b({{"TUNEKIT_TEST_DELAY_B_US", "2000"}});
    ASSERT_EQ(run_program(TUNEKIT_CHECK_DRIVER_PATH, {"tune", graph, "--output", overrides, "--shape-set", "base",
                                                      "--strategy", "fixed_average", "--iterations", "4"})
                  .exit_code,
              0);
  }
  ScopedEnvironment fail_a({{"TUNEKIT_TEST_FAIL_A", "1"}});
  auto run = check({"--json", "--isolate"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const json shapes = json::parse(run.out);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0]["outcome"], "unusable") << shapes[0];
  EXPECT_NE(shapes[0]["detail"].get<std::string>().find("relu_a fails on purpose"), std::string::npos) << shapes[0];
  EXPECT_EQ(shapes[1]["shape_set"], "wide");
  EXPECT_EQ(shapes[1]["outcome"], "not stored") << shapes[1];
  EXPECT_TRUE(shapes[1]["stored"].is_null());
}

TEST_F(CheckCli, AMissingOrMalformedOverrideFileIsBadInput) {
  auto missing = check();
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("overrides.json: no such file"), std::string::npos) << missing.err;
  std::ofstream(overrides) << "{ not json";
  auto malformed = check();
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("overrides.json"), std::string::npos) << malformed.err;
  EXPECT_EQ(read_text(overrides), "{ not json");
}

// tune --incumbents: the winners of another file (tune_graph()'s committed
// one) keep their place unless significantly slower, and a kept winner is
// written to an output that --replace started empty.
TEST_F(CheckCli, IncumbentsFromAnotherFileAreKeptUnlessBeatenAndWrittenToTheOutput) {
  {
    ScopedEnvironment slow_b({{"TUNEKIT_TEST_DELAY_B_US", "2000"}});
    ASSERT_EQ(tune().exit_code, 0);  // relu_a stored
  }
  const std::string before = read_text(overrides);
  const std::string fresh = (folder / "fresh.json").string();
  const auto tune_from_committed = [&](const std::string& out_file) {
    std::vector<std::string> args{"tune", graph, "--shape-set", "base", "--output", out_file, "--replace",
                                  "--incumbents", overrides, "--json"};
    for (const std::string& a : timing("16")) args.push_back(a);
    return run_program(TUNEKIT_CHECK_DRIVER_PATH, args);
  };
  const auto stored_in = [&](const std::string& file) {
    std::vector<std::string> args{"check", file, "--graphs", graph, "--shape-set", "base", "--json"};
    for (const std::string& a : timing()) args.push_back(a);
    auto run = run_program(TUNEKIT_CHECK_DRIVER_PATH, args);
    const json shapes = json::parse(run.out, nullptr, false);
    return shapes.is_array() && !shapes.empty() ? shapes[0]["stored"]["engine_name"].get<std::string>()
                                                : "(nothing: " + run.out + run.err + ")";
  };
  {
    // Equal delays: relu_b is not significantly faster, relu_a stays.
    ScopedEnvironment equal({{"TUNEKIT_TEST_DELAY_A_US", "1000"}, {"TUNEKIT_TEST_DELAY_B_US", "1000"}});
    auto kept = tune_from_committed(fresh);
    ASSERT_EQ(kept.exit_code, 0) << kept.out << kept.err;
    const std::string decision = json::parse(kept.out)[0]["stored_winner"].get<std::string>();
    EXPECT_NE(decision.find("the stored winner 'relu_a'"), std::string::npos) << decision;
    EXPECT_EQ(decision.find("replaced"), std::string::npos) << decision;
    EXPECT_EQ(stored_in(fresh), "relu_a");
  }
  {
    // relu_a far slower now: relu_b replaces it.
    ScopedEnvironment slow_a({{"TUNEKIT_TEST_DELAY_A_US", "3000"}, {"TUNEKIT_TEST_DELAY_B_US", "200"}});
    auto replaced = tune_from_committed(fresh);
    ASSERT_EQ(replaced.exit_code, 0) << replaced.out << replaced.err;
    EXPECT_NE(replaced.err.find("replaced: 'relu_b'"), std::string::npos) << replaced.err;
    EXPECT_EQ(stored_in(fresh), "relu_b");
  }
  EXPECT_EQ(read_text(overrides), before) << "the committed file is only read";
  std::vector<std::string> both{"tune", graph, "--output", fresh, "--incumbents", overrides, "--keep-unless-faster"};
  EXPECT_EQ(run_program(TUNEKIT_CHECK_DRIVER_PATH, both).exit_code, 2);
}

}  // namespace
