// `tunekit calibrate --profile-out` and `--unless-covered-by`: the processor
// profile a calibration writes (what calibrate_kernels() commits), and the
// check that skips keys a committed profile already covers on this processor.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"
#include "support/text_file.hpp"

namespace {

using tunekit::testing::run_tool;

using tunekit::testing::read_text;
using tunekit::testing::write_text;

constexpr const char* kNotKey = "tunekit_cpu/Not/openmp_simd/bool/cpu/abi1";

// One calibrated key, on one thread, so that the stem is predictable.
tunekit::testing::ToolRun calibrate_not(const std::vector<std::string>& extra) {
  std::vector<std::string> arguments{"calibrate", "--no-cache", "--kernel", "Not", "--threads", "1",
                                     "--time-budget", "3", "--memory-budget", "8"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return run_tool(arguments);
}

TEST(CalibrateProfile, WritesAProfileOfThisProcessorThatImportsAndNamesItsFile) {
  const tunekit::testing::ScratchDir scratch("tunekit-calibrate-profile");
  const std::filesystem::path profile = scratch.path() / "build" / "this_processor.toml";
  auto run = calibrate_not({"--profile-out", profile.string(), "--profile-priority", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(std::filesystem::exists(profile)) << run.err;
  const std::string text = read_text(profile);

  std::smatch stem;
  ASSERT_TRUE(std::regex_search(text, stem, std::regex("# file name: ([a-z0-9x]+-[0-9x]+-[0-9x]+-[0-9x]+-1t)\\.toml\n")))
      << text;
  EXPECT_NE(run.err.find("commit as " + stem[1].str() + ".toml"), std::string::npos) << run.err;
  EXPECT_NE(text.find(std::string("\n# build type: ") + TUNEKIT_EXPECTED_BUILD_TYPE + "\n"), std::string::npos) << text;
  const bool calibrated = run.out.find(std::string("calibrated  ") + kNotKey) != std::string::npos;
  if (calibrated) {
    EXPECT_NE(text.find("name = \"" + stem[1].str() + "/" + kNotKey + "\""), std::string::npos) << text;
    EXPECT_NE(text.find("priority = 1"), std::string::npos) << text;
    EXPECT_NE(text.find("minimum_threads = 1"), std::string::npos) << text;
    EXPECT_NE(text.find("maximum_threads = 1"), std::string::npos) << text;
    EXPECT_NE(text.find("models = ["), std::string::npos) << text;
    EXPECT_NE(text.find("stepping = "), std::string::npos) << text;
  } else {
    EXPECT_EQ(text.find("[[profiles]]"), std::string::npos) << text;
  }
  // The file is a valid profile file: import registers all of it or fails.
  auto imported = run_tool({"cache", "import", profile.string()});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
}

TEST(CalibrateProfile, KeysACommittedProfileCoversAreNotCalibratedAgain) {
  const tunekit::testing::ScratchDir scratch("tunekit-calibrate-covered");
  const std::filesystem::path committed = scratch.path() / "profiles";
  const std::filesystem::path first = committed / "this.toml";
  auto made = calibrate_not({"--profile-out", first.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  if (read_text(first).find("[[profiles]]") == std::string::npos) {
    GTEST_SKIP() << "Not/bool measured no value on this build and machine: " << made.out;
  }

  const std::filesystem::path fresh = scratch.path() / "build" / "fresh.toml";
  auto run = calibrate_not({"--unless-covered-by", committed.string(), "--profile-out", fresh.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(std::string("covered     ") + kNotKey + "  by profile '"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(first.string()), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("calibrated  "), std::string::npos) << run.out;
  EXPECT_EQ(read_text(fresh).find("[[profiles]]"), std::string::npos) << read_text(fresh);
}

TEST(CalibrateProfile, AProfileOfAnotherModelOrADamagedFileCoversNothing) {
  const tunekit::testing::ScratchDir scratch("tunekit-calibrate-uncovered");
  const std::filesystem::path committed = scratch.path() / "profiles";
  const std::filesystem::path mine = scratch.path() / "mine.toml";
  ASSERT_EQ(calibrate_not({"--profile-out", mine.string()}).exit_code, 0);
  std::string text = read_text(mine);
  if (text.find("[[profiles]]") == std::string::npos) GTEST_SKIP() << "Not/bool measured no value here";

  // The same profile for another model of the same family.
  std::smatch model;
  ASSERT_TRUE(std::regex_search(text, model, std::regex("models = \\[([0-9]+)\\]")));
  const std::string other = "models = [" + std::to_string(std::stoul(model[1].str()) + 1) + "]";
  write_text(committed / "other_model.toml", std::regex_replace(text, std::regex("models = \\[[0-9]+\\]"), other));
  write_text(committed / "damaged.toml", "schema_version = 1\n[[profiles]\n");

  auto run = calibrate_not({"--unless-covered-by", committed.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("covered     "), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("damaged.toml"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("(it covers nothing)"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find(kNotKey), std::string::npos) << run.out;
}

TEST(CalibrateProfile, CoveredByAndOnlyMissingAreExclusive) {
  auto run = calibrate_not({"--unless-covered-by", "/nonexistent", "--only-missing"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("excludes"), std::string::npos) << run.err;
}

}  // namespace
