// Calibration of the real Gemm with the budgets `tunekit calibrate` uses in
// CI: every candidate verified and timed on the shape families, a valid
// profile, and a kernel configured from it that still computes the product.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tunekit/cpu/gemm.hpp"
#include "cpu_calibration_setup.hpp"
#include "tunekit/cpu/register.hpp"

namespace tunekit::cpu {
namespace {

// Calibrates tunekit_cpu's `keys` with the 8 MiB memory budget of CI's
// calibrations (and `time_budget` per key when given): the report and the
// seconds it took.
struct Calibration {
  tuning::CalibrationBatchReport report;
  double seconds = 0;
};
Calibration calibrate(const std::vector<tuning::KernelTuningKey>& keys,
                      std::optional<std::chrono::milliseconds> time_budget = std::nullopt) {
  testing::CpuCalibrationSetup setup;
  if (time_budget) setup.options.time_budget = *time_budget;
  const auto start = std::chrono::steady_clock::now();
  Calibration out{tuning::CalibrateKernelThresholds(keys, setup.options, &setup.functions)};
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

TEST(GemmCalibration, CalibratesTilesAndSkinnyLimitWithinTheBudgetOnVerifiedCandidates) {
  const auto [report, seconds] =
      calibrate({gemm_key(DataType::FLOAT), gemm_key(DataType::DOUBLE)}, std::chrono::milliseconds(5'000));
  EXPECT_LT(seconds, 16.0) << "two keys must stay within about 8 s each";
  ASSERT_EQ(report.calibrated.size() + report.not_calibrated.size(), 2u) << report.to_json();
  if (report.calibrated.empty()) GTEST_SKIP() << "no value was decided on this machine: " << report.to_json();

  const std::set<std::string> calibrated_parameters = {
      "algorithm.tile_m",         "algorithm.tile_n",           "algorithm.tile_k",           "algorithm.streamed_tile_k",
      "algorithm.skinny_m_limit", "algorithm.row_stream_m_limit", "parallel.fmas_per_work_unit"};
  for (const tuning::CalibratedKey& c : report.calibrated) {
    nlohmann::json j = nlohmann::json::parse(c.report_json);
    EXPECT_TRUE(j["rejected"].empty()) << j["rejected"].dump();
    std::string measured;
    for (const auto& candidate : j["candidates"]) {
      measured += candidate["candidate"].get<std::string>() + "\n";
      EXPECT_GE(candidate["samples_ms"].size(), 5u);
    }
    std::vector<std::string> families = {" square ", " large_k ", " transposed_a ", "streamed_b ", "packed ",
                                         "streamed_tile_k=", "streamed_rows 1x"};
    // The parallel crossover, measured last, only when the execution has a
    // team and the key's budget was not spent before it (a loaded machine).
    const bool budget_spent = j["notes"].dump().find("time budget spent") != std::string::npos;
    if (c.profile.execution.effective_threads > 1 && !budget_spent) {
      families.insert(families.end(), {"1 thread ", " threads "});
    }
    for (const std::string& family : families) {
      EXPECT_NE(measured.find(family), std::string::npos) << family << " not measured:\n" << measured << j["notes"].dump();
    }
    for (const auto& [name, value] : c.profile.parameters.values) {
      EXPECT_EQ(calibrated_parameters.count(name), 1u) << name;
    }
    GemmPackedTuning config;
    ASSERT_TRUE(gemm_packed_binding().try_validate_and_apply(config, c.profile.parameters).is_good());

    // The calibrated configuration computes what the reference computes.
    std::mt19937 engine(5);
    std::normal_distribution<double> normal;
    const std::int64_t m = 97, n = 89, k = 301;
    std::vector<double> a(m * k), b(k * n), got(m * n, std::nan("")), expected(m * n);
    for (double& x : a) x = normal(engine);
    for (double& x : b) x = normal(engine);
    ASSERT_TRUE(GemmKernel(config).run(Transpose::NO, Transpose::NO, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0,
                                       got.data(), n).is_good());
    ASSERT_TRUE(gemm_reference(Transpose::NO, Transpose::NO, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0,
                               expected.data(), n).is_good());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1e-11) << i;
    // The limits are points of their doubling sequences, and each path
    // computes the product at them.
    for (const char* limit : {"algorithm.skinny_m_limit", "algorithm.row_stream_m_limit"}) {
      const auto value = c.profile.parameters.values.find(limit);
      if (value == c.profile.parameters.values.end()) continue;
      const std::int64_t rows = value->second.as_int().value();
      EXPECT_TRUE(rows == 0 || (rows & (rows - 1)) == 0) << limit << " = " << rows;
      EXPECT_LE(rows, 64) << limit;
    }
    for (const std::int64_t rows : {std::int64_t{1}, config.algorithm_row_stream_m_limit,
                                    config.algorithm_row_stream_m_limit + 1, config.algorithm_skinny_m_limit}) {
      if (rows < 1 || rows > m) continue;
      std::fill(got.begin(), got.end(), std::nan(""));
      ASSERT_TRUE(GemmKernel(config).run(Transpose::NO, Transpose::NO, rows, n, k, 1.0, a.data(), k, b.data(), n, 0.0,
                                         got.data(), n).is_good());
      for (std::int64_t i = 0; i < rows * n; ++i) ASSERT_NEAR(got[i], expected[i], 1e-11) << rows << " rows, " << i;
    }
  }
}

TEST(GemmCalibration, HalfPrecisionKeysCalibrateTheirConversionCrossoverOnTheRealProduct) {
  const auto [report, seconds] = calibrate({gemm_key(DataType::FLOAT16), gemm_key(DataType::BFLOAT16)});
  EXPECT_LT(seconds, 8.0) << "each half-precision key has a 3 s share";
  ASSERT_EQ(report.calibrated.size() + report.not_calibrated.size(), 2u) << report.to_json();
  for (const tuning::CalibratedKey& c : report.calibrated) {
    nlohmann::json j = nlohmann::json::parse(c.report_json);
    EXPECT_TRUE(j["rejected"].empty()) << j["rejected"].dump();
    std::string measured;
    for (const auto& candidate : j["candidates"]) measured += candidate["candidate"].get<std::string>() + "\n";
    EXPECT_NE(measured.find("serial conversions 32x32x32"), std::string::npos) << measured;
    EXPECT_NE(measured.find("parallel conversions 32x32x32"), std::string::npos) << measured;
    ASSERT_EQ(c.profile.parameters.values.size(), 1u);
    const std::int64_t threshold = c.profile.parameters.values.at("conversion.parallel_minimum_elements").as_int().value();
    // The second of two consecutive winning squares of the sequence 32 ... 1024.
    EXPECT_GE(threshold, 32 * 32);
    EXPECT_LE(threshold, 1024 * 1024);
    const std::set<std::int64_t> squares = {32 * 32,   48 * 48,   64 * 64,   96 * 96,   128 * 128,  192 * 192,
                                            256 * 256, 384 * 384, 512 * 512, 768 * 768, 1024 * 1024};
    EXPECT_EQ(squares.count(threshold), 1u) << threshold;
    GemmWideningTuning config;
    EXPECT_TRUE(gemm_widening_binding().try_validate_and_apply(config, c.profile.parameters).is_good());
    EXPECT_EQ(config.conversion_parallel_minimum_elements, threshold);
  }
  for (const tuning::KeyOutcome& k : report.not_calibrated) {
    EXPECT_NE(k.reason.find("conversion.parallel_minimum_elements: portable default kept"), std::string::npos)
        << k.reason;
  }
}

}  // namespace
}  // namespace tunekit::cpu
