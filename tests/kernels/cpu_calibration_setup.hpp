// tunekit_cpu registered into registries of its own, and calibration options
// over them with the 8 MiB memory budget of CI's calibrations (sizes up to
// 1M floats): the start of every test that calibrates the real kernels.
#pragma once

#include <cstddef>

#include "tunekit/cpu/register.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cpu::testing {

struct CpuCalibrationSetup {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  tuning::CalibrationOptions options;

  CpuCalibrationSetup() {
    register_tunekit_cpu(registry, functions);
    options.registry = &registry;
    options.memory_budget_bytes = std::size_t{8} << 20;
  }
  CpuCalibrationSetup(const CpuCalibrationSetup&) = delete;  // options point at registry
  CpuCalibrationSetup& operator=(const CpuCalibrationSetup&) = delete;
};

}  // namespace tunekit::cpu::testing
