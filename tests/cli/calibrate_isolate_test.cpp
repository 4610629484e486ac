// `tunekit calibrate --isolate`: each key in a process of its own, so a key
// whose calibration crashes or hangs is "not calibrated" with its signal or
// the timeout, and the other keys are calibrated, reported, cached and
// written to the profile as without isolation.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_program;

class CalibrateIsolateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-calibrate-isolate-XXXXXX";
    folder = mkdtemp(pattern);
  }
  void TearDown() override {
    unsetenv("TUNEKIT_TEST_CRASH_KERNEL");
    unsetenv("TUNEKIT_TEST_HANG_KERNEL");
    std::filesystem::remove_all(folder);
  }
  tunekit::testing::ToolRun calibrate(std::vector<std::string> extra) {
    std::vector<std::string> args{"calibrate",     "--isolate",      "--kernel",      "Abs",
                                  "--kernel",      "Neg",            "--kernel",      "Relu",
                                  "--element-type", "float",         "--time-budget", "1",
                                  "--memory-budget", "8",            "--report",      (folder / "report.json").string(),
                                  "--profile-out", (folder / "profile.toml").string(), "--cache",
                                  (folder / "cache.toml").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_program(TUNEKIT_FAULTY_CALIBRATION_DRIVER_PATH, args);
  }
  std::filesystem::path folder;
};

TEST_F(CalibrateIsolateCli, ACrashingAndAHangingKeyFailAloneAndTheOtherIsCalibratedCachedAndProfiled) {
  setenv("TUNEKIT_TEST_CRASH_KERNEL", "Abs", 1);
  setenv("TUNEKIT_TEST_HANG_KERNEL", "Relu", 1);
  auto run = calibrate({"--key-timeout", "4"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("not calibrated: tunekit_cpu/Abs/"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("isolated calibration killed by signal 11 (Segmentation fault)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("not calibrated: tunekit_cpu/Relu/"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("isolated calibration timed out after 4 s"), std::string::npos) << run.out;

  const json report = json::parse(read_text(folder / "report.json"));
  ASSERT_EQ(report["not_calibrated"].size() + report["calibrated"].size(), 3u) << report.dump(1);
  int neg = 0;
  for (const json& c : report["calibrated"]) neg += c["key"].get<std::string>().rfind("tunekit_cpu/Neg/", 0) == 0;
  for (const json& n : report["not_calibrated"]) {
    const std::string key = n["key"].get<std::string>();
    if (key.rfind("tunekit_cpu/Neg/", 0) == 0) ++neg;  // a calibration that decided nothing is still Neg's
    EXPECT_TRUE(key.rfind("tunekit_cpu/Abs/", 0) == 0 || key.rfind("tunekit_cpu/Relu/", 0) == 0 ||
                key.rfind("tunekit_cpu/Neg/", 0) == 0)
        << key;
  }
  EXPECT_EQ(neg, 1) << report.dump(1);
  // The parent's own profile line, not the children's scratch files.
  EXPECT_NE(run.err.find("profile: " + (folder / "profile.toml").string()), std::string::npos) << run.err;
  const std::size_t first_profile_line = run.err.find("profile: ");
  EXPECT_EQ(run.err.find("profile: ", first_profile_line + 1), std::string::npos) << run.err;
  const std::string profile = read_text(folder / "profile.toml");
  EXPECT_EQ(profile.find("Abs"), std::string::npos) << profile;
  EXPECT_EQ(profile.find("Relu"), std::string::npos) << profile;
  if (!report["calibrated"].empty()) {
    EXPECT_NE(profile.find("kernel = \"Neg\""), std::string::npos) << profile;
    EXPECT_NE(read_text(folder / "cache.toml").find("Neg"), std::string::npos);
  }
}

TEST_F(CalibrateIsolateCli, ASelectionOfNoKernelIsSaidAsWithoutIsolation) {
  auto run = run_program(TUNEKIT_FAULTY_CALIBRATION_DRIVER_PATH,
                         {"calibrate", "--isolate", "--kernel", "NoSuchKernel", "--no-cache"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("selects no registered kernel"), std::string::npos) << run.err;
}

TEST_F(CalibrateIsolateCli, WithoutIsolationTheCrashingKeyEndsTheWholeRun) {
  setenv("TUNEKIT_TEST_CRASH_KERNEL", "Abs", 1);
  auto run = run_program(TUNEKIT_FAULTY_CALIBRATION_DRIVER_PATH,
                         {"calibrate", "--kernel", "Abs", "--kernel", "Neg", "--element-type", "float",
                          "--time-budget", "1", "--no-cache"});
  EXPECT_EQ(run.signal, SIGSEGV) << run.exit_code << run.err;
}

}  // namespace
