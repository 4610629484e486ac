// Registration of tunekit_cpu with a tuning registry: the schema of every
// tunable kernel key and its calibration function.
#pragma once

#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cpu {

inline constexpr const char* kLibraryVersion = "0.1.0";

// Registers the schemas and calibration functions of every tunekit_cpu
// kernel. Throws TuningError when a schema is rejected (a programming error).
void register_tunekit_cpu(tuning::KernelTuningRegistry& registry = tuning::KernelTuningRegistry::global(),
                          tuning::KernelCalibrationRegistry& functions = tuning::KernelCalibrationRegistry::global());

// The calibration function of the unary elementwise kernels (Abs, Not).
tuning::KernelTuningParameters calibrate_unary_elementwise(const tuning::KernelTuningKey& key,
                                                           tuning::CalibrationContext& context);

}  // namespace tunekit::cpu
