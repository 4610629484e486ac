// Calibration of the real Abs and Not kernels with small budgets: a valid
// profile, a report with every candidate, and a tuned kernel that still
// computes the right result.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cpu_calibration_setup.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::cpu {
namespace {

TEST(UnaryCalibration, CalibratesAbsAndNotIntoValidPublishedProfiles) {
  testing::CpuCalibrationSetup setup;
  setup.options.time_budget = std::chrono::milliseconds(20'000);
  tuning::KernelCalibrationSelection selection;
  selection.kernels = {"Abs", "Not"};  // float also has the other unary kernels now
  selection.element_types = {DataType::FLOAT, DataType::BOOL};
  selection.kernels = {"Abs", "Not"};  // Gemm float is calibrated by GemmCalibration
  tuning::CalibrationBatchReport report =
      tuning::CalibrateRegisteredKernels(selection, setup.options, &setup.functions);
  // A key whose timings decided nothing (a loaded machine, an unoptimised
  // sanitizer build where the SIMD path is no faster) is reported, never
  // published.
  ASSERT_EQ(report.calibrated.size() + report.not_calibrated.size(), 2u);
  if (report.calibrated.empty()) {
    GTEST_SKIP() << "no crossover was clear in this build: " << report.to_json();
  }
  for (const tuning::CalibratedKey& c : report.calibrated) {
    const auto& values = c.profile.parameters.values;
    ASSERT_FALSE(values.empty());
    // A thread count is published only with the parallel crossover it was measured at.
    EXPECT_EQ(values.count("parallel.maximum_threads"), values.count("parallel.minimum_elements"));
    if (values.count("parallel.maximum_threads")) {
      EXPECT_EQ(values.at("parallel.maximum_threads"), Value(std::int64_t{c.profile.execution.effective_threads}));
    }
    nlohmann::json j = nlohmann::json::parse(c.report_json);
    EXPECT_GE(j["candidates"].size(), 4u) << c.report_json;
    for (const auto& candidate : j["candidates"]) EXPECT_GE(candidate["samples_ms"].size(), 5u);
    EXPECT_GE(j["selected"].size(), 2u);
    EXPECT_TRUE(j["rejected"].empty()) << j["rejected"].dump();
  }
  // A session now resolves the calibrated values and the kernel computes
  // what its serial scalar path computes.
  const tuning::CalibratedKernelProfile& calibrated = report.calibrated[0].profile;
  const tuning::KernelTuningKey& key = calibrated.parameters.key;
  const UnaryOp op = key.kernel == "Not" ? UnaryOp::NOT : UnaryOp::ABS;
  tuning::TuningSessionOptions session_options;
  session_options.registry = &setup.registry;
  session_options.execution = calibrated.execution;
  auto session = tuning::TuningSession::Create(session_options);
  EXPECT_EQ(session.resolve(key).source, tuning::ResolutionSource::CALIBRATED);
  const UnaryElementwiseKernel kernel(op, session.configure(unary_elementwise_binding(), key));
  auto input = tuning::RandnTensor(key.element_type, {100'000}, 3);
  auto output = tuning::EmptyTensor(key.element_type, {100'000});
  auto reference = tuning::EmptyTensor(key.element_type, {100'000});
  tuning::poison(*output);
  ASSERT_TRUE(kernel.run(*input, *output).is_good());
  ASSERT_TRUE(UnaryElementwiseKernel(op, UnaryElementwiseTuning{})
                  .run(*input, *reference, ExecutionPath::SERIAL_SCALAR, 1)
                  .is_good());
  Error same = tuning::compare_tensors(*reference, *output, 0.0);
  EXPECT_TRUE(same.is_good()) << same.message();
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
  // Nothing was measured, so nothing is published: a later only_missing run
  // calibrates the key again.
  EXPECT_TRUE(report.calibrated.empty());
  EXPECT_EQ(report.published_generation, 0u);
  ASSERT_EQ(report.not_calibrated.size(), 1u);
  EXPECT_EQ(report.not_calibrated[0].key, unary_key(UnaryOp::ABS, DataType::DOUBLE));
  EXPECT_NE(report.not_calibrated[0].reason.find("algorithm.simd_min_elements: portable default kept: "
                                                 "time budget of 0 ms exhausted"),
            std::string::npos)
      << report.not_calibrated[0].reason;
  EXPECT_EQ(report.not_calibrated[0].reason.find("parallel.maximum_threads"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(report.to_json());
  ASSERT_EQ(j["not_calibrated"].size(), 1u);
  EXPECT_TRUE(j["calibrated"].empty());
}

TEST(UnaryCalibration, AThreadCappedCalibrationIsPublishedForTheExecutionItMeasured) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  platform::CpuExecutionDescriptor two_threads = platform::detect_execution_descriptor();
  two_threads.effective_threads = 2;
  tuning::CalibrationOptions options;
  options.registry = &registry;
  options.execution = two_threads;
  options.maximum_threads = 1;
  options.memory_budget_bytes = std::size_t{1} << 20;
  tuning::CalibrationBatchReport report =
      tuning::CalibrateKernelThresholds(std::vector{unary_key(UnaryOp::ABS, DataType::FLOAT)}, options, &functions);
  // One thread measures no parallel crossover, so no thread count is ever claimed.
  if (report.calibrated.empty()) {
    ASSERT_EQ(report.not_calibrated.size(), 1u) << report.to_json();
    EXPECT_EQ(report.not_calibrated[0].reason.find("parallel.maximum_threads"), std::string::npos);
    GTEST_SKIP() << "the SIMD path did not win in this build (unoptimised?): " << report.not_calibrated[0].reason;
  }
  ASSERT_EQ(report.calibrated.size(), 1u) << report.to_json();
  const tuning::CalibratedKernelProfile& profile = report.calibrated[0].profile;
  EXPECT_EQ(profile.execution.effective_threads, 1u);
  EXPECT_FALSE(profile.parameters.values.count("parallel.maximum_threads"));
  EXPECT_FALSE(profile.parameters.values.count("parallel.minimum_elements"));
  auto snapshot = registry.snapshot();
  const auto key = unary_key(UnaryOp::ABS, DataType::FLOAT);
  platform::CpuExecutionDescriptor one_thread = two_threads;
  one_thread.effective_threads = 1;
  EXPECT_EQ(snapshot->resolve(key, one_thread).source, tuning::ResolutionSource::CALIBRATED);
  EXPECT_NE(snapshot->resolve(key, two_threads).source, tuning::ResolutionSource::CALIBRATED);
}

}  // namespace
}  // namespace tunekit::cpu
