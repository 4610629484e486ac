// `tunekit calibrate` end to end: the first process calibrates the
// tunekit_cpu kernels and writes the cache and a report; a second process
// loads every entry and, with --only-missing, calibrates nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"
#include "tunekit/tuning/tuning_spec.hpp"
#include "support/scratch_dir.hpp"

namespace {

using tunekit::testing::run_tool;

// The keys `tunekit calibrate` calibrates: every key of tunekit_cpu's spec.
std::size_t spec_key_count() {
  auto spec = tunekit::tuning::ReadTuningSpec(TUNEKIT_CPU_SPEC_PATH);
  return spec.ok() ? spec->keys().size() : 0;
}

std::string loaded_line(const std::string& cache, std::size_t loaded) {
  return "cache: read " + cache + ": " + std::to_string(loaded) + " loaded";
}

TEST(CalibrateCommand, WritesACacheThatASecondProcessLoadsWhole) {
  const tunekit::testing::ScratchDir scratch("tunekit-calibrate");
  const std::filesystem::path& folder = scratch.path();
  const std::string cache = (folder / "sub" / "cache.toml").string();
  const std::string report = (folder / "report.json").string();
  auto first = run_tool({"calibrate", "--cache", cache, "--report", report, "--time-budget", "5",
                         "--memory-budget", "8"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("cache: not_found"), std::string::npos) << first.err;
  ASSERT_TRUE(std::filesystem::exists(cache));

  // Every key is calibrated or, where its timings decided nothing (an
  // unoptimised sanitizer build, a loaded machine), reported not calibrated;
  // float Abs has a clear scalar/SIMD crossover in an optimised build.
  std::ifstream in(report);
  nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_GT(spec_key_count(), 0u);
  ASSERT_EQ(j["calibrated"].size() + j["not_calibrated"].size(), spec_key_count()) << j.dump(2);
  ASSERT_GE(j["calibrated"].size(), 1u) << j.dump(2);
  // The build type tunekit_cpu was compiled in, as this test was.
  EXPECT_EQ(j["build_type"], TUNEKIT_EXPECTED_BUILD_TYPE);
  EXPECT_EQ(first.err.find("without optimisation"), std::string::npos) << first.err;
  for (const auto& c : j["calibrated"]) {
    EXPECT_NE(first.out.find("calibrated  " + c["key"].get<std::string>()), std::string::npos) << first.out;
    EXPECT_EQ(c["digest"].get<std::string>().size(), 32u);
    EXPECT_FALSE(c["report"]["candidates"].empty());
    EXPECT_EQ(c["report"]["processor"]["architecture"], "x86_64");
  }
  for (const auto& n : j["not_calibrated"]) {
    EXPECT_NE(first.out.find("not calibrated: " + n["key"].get<std::string>()), std::string::npos) << first.out;
  }

  // The second process loads every stored entry and calibrates only what
  // was not calibrated before.
  auto second = run_tool({"calibrate", "--cache", cache, "--only-missing", "--time-budget", "5",
                          "--memory-budget", "8"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find(loaded_line(cache, j["calibrated"].size())), std::string::npos) << second.err;
  for (const auto& c : j["calibrated"]) {
    EXPECT_NE(second.out.find("skipped     " + c["key"].get<std::string>()), std::string::npos) << second.out;
  }
  for (const auto& n : j["not_calibrated"]) {
    EXPECT_EQ(second.out.find("skipped     " + n["key"].get<std::string>()), std::string::npos) << second.out;
  }
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
