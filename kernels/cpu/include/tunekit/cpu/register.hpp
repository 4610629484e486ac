// Registration of tunekit_cpu with a tuning registry: the schema of every
// tunable kernel key and its calibration function.
#pragma once

#include "tunekit/cpu/tuning_defaults.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cpu {

// The version calibrated values are recorded with (the spec's library_version).
inline constexpr const char* kLibraryVersion = kTuningLibraryVersion;

// Registers the schemas (register_tunekit_cpu_schemas) and calibration
// functions of every tunekit_cpu kernel. Throws TuningError when a schema is
// rejected (a programming error).
void register_tunekit_cpu(tuning::KernelTuningRegistry& registry = tuning::KernelTuningRegistry::global(),
                          tuning::KernelCalibrationRegistry& functions = tuning::KernelCalibrationRegistry::global());

// The calibration function of the unary elementwise kernels (Abs, Not).
tuning::KernelTuningParameters calibrate_unary_elementwise(const tuning::KernelTuningKey& key,
                                                           tuning::CalibrationContext& context);

}  // namespace tunekit::cpu
