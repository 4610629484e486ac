// Profiles as the registry stores them: processor profiles registered by a
// kernel library (constrained by a CpuSelector) and calibrated profiles
// measured for one exact execution descriptor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tunekit/tuning/cpu_selector.hpp"
#include "tunekit/tuning/kernel_tuning_parameters.hpp"

namespace tunekit::tuning {

// Where a resolved parameter set came from, in the order of precedence.
enum class ResolutionSource {
  SESSION_OVERRIDE,
  CALIBRATED,
  EXACT_PROCESSOR,
  PROCESSOR_GROUP,
  INSTRUCTION_SET,
  PORTABLE_DEFAULT,
};
std::string_view to_string(ResolutionSource source) noexcept;

struct KernelTuningProfile {
  std::string name;  // unique within the registry; generated when empty
  CpuSelector selector;
  KernelTuningParameters parameters;  // may be partial: the rest are defaults
  int priority = 0;
};

struct CalibratedKernelProfile {
  std::string name;  // unique within the registry; generated when empty
  KernelTuningParameters parameters;
  // The exact execution the values were measured for; they apply only to an
  // execution with the same identity (processor, effective threads, NUMA).
  platform::CpuExecutionDescriptor execution;
  std::string report_digest;  // digest of the calibration report
  std::string library_version;  // version of the kernel library that was calibrated
};

}  // namespace tunekit::tuning
