// Calibration of the real binary kernels: every candidate path must pass the
// calibration's check against the serial scalar path. Pow is the operation
// whose SIMD paths may differ from the C library's powf and pow by an ulp
// (tunekit/cpu/binary_elementwise.hpp), so its keys must carry a tolerance
// that admits exactly that.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cpu_calibration_setup.hpp"

namespace tunekit::cpu {
namespace {

TEST(BinaryCalibration, PowOfEveryFloatingTypeRejectsNoCandidate) {
  testing::CpuCalibrationSetup setup;
  setup.options.time_budget = std::chrono::milliseconds(2'000);
  tuning::KernelCalibrationSelection selection;
  selection.kernels = {"Pow"};
  const tuning::CalibrationBatchReport report =
      tuning::CalibrateRegisteredKernels(selection, setup.options, &setup.functions);
  ASSERT_EQ(report.calibrated.size() + report.not_calibrated.size(), 4u) << report.to_json();
  for (const tuning::KeyOutcome& k : report.not_calibrated) {
    EXPECT_EQ(k.reason.find("wrong result"), std::string::npos) << k.key.to_string() << ": " << k.reason;
  }
  for (const tuning::CalibratedKey& c : report.calibrated) {
    const nlohmann::json j = nlohmann::json::parse(c.report_json);
    EXPECT_TRUE(j["rejected"].empty()) << c.profile.parameters.key.to_string() << ": " << j["rejected"].dump();
  }
}

}  // namespace
}  // namespace tunekit::cpu
