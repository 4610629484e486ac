#include "tunekit/tuning/kernel_calibration_selection.hpp"

#include <gtest/gtest.h>

namespace tunekit::tuning {
namespace {

KernelTuningKey key(std::string library, std::string kernel, std::string implementation, DataType type,
                    platform::DeviceKind device = platform::DeviceKind::CPU) {
  return {std::move(library), std::move(kernel), std::move(implementation), type, device, 1};
}

struct SelectionCase {
  const char* name;
  KernelCalibrationSelection selection;
  // Expected for: cpu/Abs/avx2/float, cpu/Abs/avx2/double, cpu/Gemm/blocked/float, other/Abs/avx2/float,
  // cpu/Not/scalar/bool, cpu/Abs/avx2/float on HIP.
  bool expected[6];
};

TEST(KernelCalibrationSelection, FieldsAreAndValuesAreOr) {
  const KernelTuningKey keys[] = {
      key("cpu", "Abs", "avx2", DataType::FLOAT),  key("cpu", "Abs", "avx2", DataType::DOUBLE),
      key("cpu", "Gemm", "blocked", DataType::FLOAT), key("other", "Abs", "avx2", DataType::FLOAT),
      key("cpu", "Not", "scalar", DataType::BOOL), key("cpu", "Abs", "avx2", DataType::FLOAT, platform::DeviceKind::HIP),
  };
  KernelCalibrationSelection library_only;
  library_only.library = "cpu";
  KernelCalibrationSelection two_kernels_two_types;
  two_kernels_two_types.kernels = {"Abs", "Gemm"};
  two_kernels_two_types.element_types = {DataType::FLOAT, DataType::DOUBLE};
  KernelCalibrationSelection library_and_kernel;
  library_and_kernel.library = "cpu";
  library_and_kernel.kernels = {"Abs"};
  KernelCalibrationSelection implementation;
  implementation.implementations = {"scalar", "blocked"};
  KernelCalibrationSelection hip;
  hip.device = platform::DeviceKind::HIP;
  KernelCalibrationSelection nothing_matches;
  nothing_matches.kernels = {"Conv"};

  const SelectionCase cases[] = {
      {"empty selects every key of the active device", {}, {true, true, true, true, true, false}},
      {"library", library_only, {true, true, true, false, true, false}},
      {"kernels OR, types OR, AND between", two_kernels_two_types, {true, true, true, true, false, false}},
      {"library AND kernel", library_and_kernel, {true, true, false, false, false, false}},
      {"implementations", implementation, {false, false, true, false, true, false}},
      {"another device", hip, {false, false, false, false, false, true}},
      {"no match", nothing_matches, {false, false, false, false, false, false}},
  };
  for (const SelectionCase& c : cases) {
    for (std::size_t i = 0; i < std::size(keys); ++i) {
      EXPECT_EQ(c.selection.selects(keys[i]), c.expected[i]) << c.name << ", key " << keys[i].to_string();
    }
  }
}

TEST(KernelCalibrationSelection, TextForm) {
  KernelCalibrationSelection s;
  EXPECT_EQ(s.to_string(), "all");
  s.library = "tunekit_cpu";
  s.kernels = {"Abs", "Not"};
  s.element_types = {DataType::FLOAT};
  s.only_missing = true;
  EXPECT_EQ(s.to_string(), "library=tunekit_cpu kernels=[Abs,Not] element_types=[float] only_missing");
}

}  // namespace
}  // namespace tunekit::tuning
