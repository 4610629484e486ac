// Calibration of the real Abs and Not kernels with small budgets: a valid
// profile, a report with every candidate, and a tuned kernel that still
// computes the right result.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::cpu {
namespace {

TEST(UnaryCalibration, CalibratesAbsAndNotIntoValidPublishedProfiles) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  tuning::CalibrationOptions options;
  options.registry = &registry;
  options.memory_budget_bytes = std::size_t{8} << 20;  // sizes up to 1M floats
  options.time_budget = std::chrono::milliseconds(20'000);
  tuning::KernelCalibrationSelection selection;
  selection.element_types = {DataType::FLOAT, DataType::BOOL};
  tuning::CalibrationBatchReport report = tuning::CalibrateRegisteredKernels(selection, options, &functions);
  ASSERT_EQ(report.calibrated.size(), 2u);
  for (const tuning::CalibratedKey& c : report.calibrated) {
    const auto& values = c.profile.parameters.values;
    ASSERT_TRUE(values.count("parallel.maximum_threads"));
    EXPECT_EQ(values.at("parallel.maximum_threads"), Value(std::int64_t{c.profile.execution.effective_threads}));
    nlohmann::json j = nlohmann::json::parse(c.report_json);
    EXPECT_GE(j["candidates"].size(), 4u) << c.report_json;
    for (const auto& candidate : j["candidates"]) EXPECT_GE(candidate["samples_ms"].size(), 5u);
    EXPECT_GE(j["selected"].size(), 3u);
    EXPECT_TRUE(j["rejected"].empty()) << j["rejected"].dump();
  }
  // A session now resolves the calibrated values and the kernel computes right.
  tuning::TuningSessionOptions session_options;
  session_options.registry = &registry;
  session_options.execution = report.calibrated[0].profile.execution;
  auto session = tuning::TuningSession::Create(session_options);
  const auto key = unary_key(UnaryOp::ABS, DataType::FLOAT);
  EXPECT_EQ(session.resolve(key).source, tuning::ResolutionSource::CALIBRATED);
  const UnaryElementwiseKernel kernel(UnaryOp::ABS, session.configure(unary_elementwise_binding(), key));
  auto input = tuning::RandnTensor(DataType::FLOAT, {100'000}, 3);
  auto output = tuning::EmptyTensor(DataType::FLOAT, {100'000});
  tuning::poison(*output);
  ASSERT_TRUE(kernel.run(*input, *output).is_good());
  for (std::int64_t i = 0; i < 100'000; ++i) ASSERT_EQ(output->as<float>()[i], std::fabs(input->as<float>()[i]));
}

TEST(UnaryCalibration, AnExhaustedBudgetKeepsThePortableDefaultsAndSaysWhy) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  tuning::CalibrationOptions options;
  options.registry = &registry;
  options.time_budget = std::chrono::milliseconds(0);
  tuning::CalibrationBatchReport report =
      tuning::CalibrateKernelThresholds(std::vector{unary_key(UnaryOp::ABS, DataType::DOUBLE)}, options, &functions);
  ASSERT_EQ(report.calibrated.size(), 1u);
  const auto& values = report.calibrated[0].profile.parameters.values;
  EXPECT_FALSE(values.count("algorithm.simd_min_elements"));  // default kept
  nlohmann::json j = nlohmann::json::parse(report.calibrated[0].report_json);
  ASSERT_FALSE(j["rejected"].empty());
  EXPECT_EQ(j["rejected"][0]["reason"], "time budget of 0 ms exhausted");
}

}  // namespace
}  // namespace tunekit::cpu
