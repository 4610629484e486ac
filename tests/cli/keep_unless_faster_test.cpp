// `tunekit calibrate --keep-unless-faster DIR` and `tunekit check --profiles
// DIR`: a committed profile's values are where the calibration starts, kept
// unless a challenger is faster by the margin, and every committed value the
// calibration did not measure survives a rewritten profile. The key is Abs
// float with a scripted calibration (faulty_calibration_driver_main.cpp): a
// serial path of 20 ns per element against a "parallel" one of 100 us plus
// 2 ns per element, within 5% of each other around 5,600 elements.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_program;
using tunekit::testing::ScopedEnvironment;

class KeepUnlessFasterCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-keep-unless-faster-XXXXXX";
    folder = mkdtemp(pattern);
    std::filesystem::create_directories(folder / "committed");
  }
  void TearDown() override { std::filesystem::remove_all(folder); }

  static tunekit::testing::ToolRun tool(std::vector<std::string> args) {
    return run_program(TUNEKIT_FAULTY_CALIBRATION_DRIVER_PATH, args);
  }
  static std::vector<std::string> calibrate_args(std::vector<std::string> extra) {
    std::vector<std::string> args{"calibrate", "--kernel", "Abs", "--element-type", "float", "--no-cache"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // A profile of this machine for the scripted key holding `parameters`
  // (TOML lines): the selector of a calibration's own profile, the values
  // replaced.
  void commit(const std::string& parameters) {
    const std::filesystem::path own = folder / "own.toml";
    auto run = tool(calibrate_args({"--time-budget", "2", "--profile-out", own.string()}));
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    std::string text = read_text(own);
    const std::size_t at = text.find("[profiles.parameters]");
    ASSERT_NE(at, std::string::npos) << text;
    text = text.substr(0, at) + "[profiles.parameters]\n" + parameters;
    std::ofstream(folder / "committed" / "machine.toml") << text;
  }

  std::filesystem::path folder;
  ScopedEnvironment scripted{{"TUNEKIT_TEST_SCRIPTED_KERNEL", "Abs"}};
};

TEST_F(KeepUnlessFasterCli, ACommittedThresholdNoProbeContradictsIsKeptWithTheValuesNotMeasured) {
  commit("\"algorithm.simd_min_elements\" = 24\n\"parallel.minimum_elements\" = 5800\n"
         "\"parallel.maximum_threads\" = 1\n");
  const std::filesystem::path written = folder / "rewritten.toml";
  auto run = tool(calibrate_args({"--keep-unless-faster", (folder / "committed").string(), "--profile-out",
                                  written.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("committed   tunekit_cpu/Abs/"), std::string::npos) << run.out;
  const std::string profile = read_text(written);
  EXPECT_NE(profile.find("\"parallel.minimum_elements\" = 5800"), std::string::npos) << profile << run.out;
  EXPECT_NE(profile.find("\"algorithm.simd_min_elements\" = 24"), std::string::npos) << profile;
  EXPECT_NE(profile.find("\"parallel.maximum_threads\" = 1"), std::string::npos) << profile;

  auto check = tool({"check", "--profiles", (folder / "committed").string()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("unchanged  tunekit_cpu/Abs/openmp_simd/float/cpu/abi1 parallel.minimum_elements = 5800: "
                           "the candidate wins from size"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("the preferred threshold 5800 is kept"), std::string::npos) << check.out;
  EXPECT_NE(check.err.find("3 values unchanged, 0 beaten"), std::string::npos) << check.err;

  // The same through isolated children.
  const std::filesystem::path isolated = folder / "isolated.toml";
  run = tool(calibrate_args({"--isolate", "--keep-unless-faster", (folder / "committed").string(), "--profile-out",
                             isolated.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string isolated_profile = read_text(isolated);
  EXPECT_NE(isolated_profile.find("\"parallel.minimum_elements\" = 5800"), std::string::npos) << isolated_profile;
  EXPECT_NE(isolated_profile.find("\"algorithm.simd_min_elements\" = 24"), std::string::npos) << isolated_profile;
  // The same decisions, the same bytes: a profile holds no time or date.
  EXPECT_EQ(isolated_profile, profile);
}

TEST_F(KeepUnlessFasterCli, ACommittedThresholdAChallengerBeatsIsReplacedAndFailsTheCheck) {
  // 65,536 elements: the scripted candidate is five times faster there.
  commit("\"algorithm.simd_min_elements\" = 24\n\"parallel.minimum_elements\" = 65536\n");
  auto check = tool({"check", "--profiles", (folder / "committed").string()});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  const std::regex changed(R"(changed    tunekit_cpu/Abs/openmp_simd/float/cpu/abi1 parallel\.minimum_elements )"
                           R"(65536 -> (\d+): the candidate wins from size)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(check.out, m, changed)) << check.out;
  const long replaced = std::stol(m[1]);
  EXPECT_GE(replaced, 4096);
  EXPECT_LE(replaced, 16384);
  EXPECT_NE(check.out.find("unchanged  tunekit_cpu/Abs/openmp_simd/float/cpu/abi1 algorithm.simd_min_elements = 24"),
            std::string::npos)
      << check.out;
  // A change is confirmed by a second calibration of the key.
  EXPECT_NE(check.err.find("check: calibrating 1 key(s) again to confirm their changes"), std::string::npos)
      << check.err;

  auto as_json = tool({"check", "--profiles", (folder / "committed").string(), "--json"});
  EXPECT_EQ(as_json.exit_code, 1) << as_json.err;
  const json rows = json::parse(as_json.out);
  bool found = false;
  for (const json& row : rows) {
    if (row["parameter"] != "parallel.minimum_elements") continue;
    found = true;
    EXPECT_EQ(row["outcome"], "changed") << row.dump();
    EXPECT_EQ(row["committed"], "65536") << row.dump();
  }
  EXPECT_TRUE(found) << as_json.out;

  const std::filesystem::path written = folder / "rewritten.toml";
  auto run = tool(calibrate_args({"--keep-unless-faster", (folder / "committed").string(), "--profile-out",
                                  written.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string profile = read_text(written);
  EXPECT_EQ(profile.find("\"parallel.minimum_elements\" = 65536"), std::string::npos) << profile;
  EXPECT_NE(profile.find("\"algorithm.simd_min_elements\" = 24"), std::string::npos) << profile;
}

TEST_F(KeepUnlessFasterCli, ProfilesThatCoverNothingHereOrCannotBeReadAndBadUsage) {
  auto nothing = tool({"check", "--profiles", (folder / "committed").string()});
  EXPECT_EQ(nothing.exit_code, 0) << nothing.out << nothing.err;
  EXPECT_NE(nothing.err.find("no profile in"), std::string::npos) << nothing.err;

  std::ofstream(folder / "committed" / "broken.toml") << "schema_version = 1\n[[profiles]\nname = \n";
  auto broken = tool({"check", "--profiles", (folder / "committed").string()});
  EXPECT_EQ(broken.exit_code, 2) << broken.out << broken.err;
  EXPECT_NE(broken.err.find("broken.toml"), std::string::npos) << broken.err;

  auto both = tool({"check", "overrides.json", "--profiles", (folder / "committed").string()});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("--profiles checks processor profiles"), std::string::npos) << both.err;
  auto neither = tool({"check"});
  EXPECT_EQ(neither.exit_code, 2) << neither.err;
  auto exclusive = tool(calibrate_args({"--keep-unless-faster", folder.string(), "--unless-covered-by",
                                        folder.string()}));
  EXPECT_NE(exclusive.exit_code, 0) << exclusive.err;
}

}  // namespace
