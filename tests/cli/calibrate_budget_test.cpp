// `tunekit calibrate --total-time-budget S`: the whole run's budget bounds
// each key's, a key it leaves no time for is not started (and said so), and
// the same command with --only-missing continues with the keys the cache
// does not hold. The keys sleep instead of measuring
// (TUNEKIT_TEST_SLEEP_KERNELS in faulty_calibration_driver_main.cpp): 600 ms
// or their whole budget, whichever is shorter.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_program;
using tunekit::testing::ScopedEnvironment;

class CalibrateBudgetCli : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-calibrate-budget-XXXXXX";
    folder = mkdtemp(pattern);
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  tunekit::testing::ToolRun calibrate(std::vector<std::string> extra) {
    std::vector<std::string> args{"calibrate", "--kernel", "Abs", "--kernel", "Neg", "--kernel", "Relu",
                                  "--element-type", "float", "--report", (folder / "report.json").string(),
                                  "--cache", (folder / "cache.toml").string()};
    if (GetParam()) args.push_back("--isolate");
    args.insert(args.end(), extra.begin(), extra.end());
    return run_program(TUNEKIT_FAULTY_CALIBRATION_DRIVER_PATH, args);
  }
  std::filesystem::path folder;
  ScopedEnvironment sleepy{{"TUNEKIT_TEST_SLEEP_KERNELS", "Abs,Neg,Relu"}};
};

TEST_P(CalibrateBudgetCli, KeysTheRunBudgetLeavesNoTimeForAreNotStartedAndTheNextRunContinues) {
  // Abs sleeps 600 ms; Neg gets the 400 ms left; Relu none.
  auto first = calibrate({"--total-time-budget", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("calibrated  tunekit_cpu/Abs/"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("calibrated  tunekit_cpu/Neg/"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("not calibrated: tunekit_cpu/Relu/openmp_simd/float/cpu/abi1  not started: the run's "
                           "time budget ran out"),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.err.find("tunekit calibrate: the run's time budget of 1 s ran out"), std::string::npos)
      << first.err;
  EXPECT_NE(first.err.find("--only-missing continues"), std::string::npos) << first.err;
  const json report = json::parse(read_text(folder / "report.json"));
  ASSERT_EQ(report["calibrated"].size(), 2u) << report.dump(1);
  const json& neg = report["calibrated"][1];
  EXPECT_EQ(neg["key"].get<std::string>().rfind("tunekit_cpu/Neg/", 0), 0u) << neg.dump();
  EXPECT_LT(neg["report"]["elapsed_ms"].get<double>(), 500.0) << "the run's budget bounds the key's";

  auto second = calibrate({"--only-missing", "--total-time-budget", "10"});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("calibrated  tunekit_cpu/Relu/"), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("calibrated  tunekit_cpu/Abs/"), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("calibrated  tunekit_cpu/Neg/"), std::string::npos) << second.out;
  EXPECT_EQ(second.err.find("time budget of 10 s ran out"), std::string::npos) << second.err;
}

INSTANTIATE_TEST_SUITE_P(InProcessAndIsolated, CalibrateBudgetCli, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Isolated" : "InProcess"; });

}  // namespace
