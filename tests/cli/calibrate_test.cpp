// `tunekit calibrate` end to end: the first process calibrates the
// tunekit_cpu kernels and writes the cache and a report; a second process
// loads every entry and, with --only-missing, calibrates nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"

namespace {

using tunekit::testing::run_tool;

TEST(CalibrateCommand, WritesACacheThatASecondProcessLoadsWhole) {
  const tunekit::testing::ScratchDir scratch("tunekit-calibrate");
  const std::filesystem::path& folder = scratch.path();
  const std::string cache = (folder / "sub" / "cache.toml").string();
  const std::string report = (folder / "report.json").string();
  auto first = run_tool({"calibrate", "--cache", cache, "--report", report, "--time-budget", "5",
                         "--memory-budget", "8"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("calibrated  tunekit_cpu/Abs/openmp_simd/float/cpu/abi1"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("calibrated  tunekit_cpu/Not/openmp_simd/bool/cpu/abi1"), std::string::npos);
  EXPECT_NE(first.err.find("cache: not_found"), std::string::npos) << first.err;
  ASSERT_TRUE(std::filesystem::exists(cache));

  std::ifstream in(report);
  nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["calibrated"].size(), 4u);
  for (const auto& c : j["calibrated"]) {
    EXPECT_EQ(c["digest"].get<std::string>().size(), 32u);
    EXPECT_FALSE(c["report"]["candidates"].empty());
    EXPECT_EQ(c["report"]["processor"]["architecture"], "x86_64");
  }

  auto second = run_tool({"calibrate", "--cache", cache, "--only-missing"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("cache: read " + cache + ": 4 loaded"), std::string::npos) << second.err;
  EXPECT_NE(second.out.rfind("skipped", 0), std::string::npos) << second.out;  // nothing calibrated again
  EXPECT_EQ(second.out.find("\ncalibrated  "), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("skipped     tunekit_cpu/Abs/openmp_simd/double/cpu/abi1"), std::string::npos);
}

TEST(CalibrateCommand, SelectionFlagsNarrowTheKeys) {
  auto run = run_tool({"calibrate", "--no-cache", "--kernel", "Not", "--time-budget", "2", "--memory-budget", "4"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("tunekit_cpu/Not/openmp_simd/bool"), std::string::npos);
  EXPECT_EQ(run.out.find("Abs"), std::string::npos) << run.out;
}

TEST(CalibrateCommand, BadElementTypeIsBadUsage) {
  auto run = run_tool({"calibrate", "--no-cache", "--element-type", "float7"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown data type 'float7'"), std::string::npos) << run.err;
}

}  // namespace
