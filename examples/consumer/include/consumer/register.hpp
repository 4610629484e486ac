// Registration of consumer_kernels with tunekit: the schema of every tunable
// key (from the generated tuning_defaults.hpp) and the calibration function
// of each. calibrate_kernels() in CMakeLists.txt builds a driver that calls
// register_kernels; programs that only run the kernels register the schemas
// (register_consumer_kernels_schemas) and the processor profiles.
#pragma once

#include "consumer/tuning_defaults.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace consumer {

// Registers the schemas in `registry` and the calibration functions in the
// process-wide calibration registry (where the driver looks for them).
// Throws TuningError when a schema is rejected (a programming error).
void register_kernels(tunekit::tuning::KernelTuningRegistry& registry);

// The calibration function of Saxpy: the scalar/SIMD crossover, then the
// serial/parallel crossover, both measured on the real kernel and checked
// against its serial scalar path.
tunekit::tuning::KernelTuningParameters calibrate_saxpy(const tunekit::tuning::KernelTuningKey& key,
                                                        tunekit::tuning::CalibrationContext& context);

}  // namespace consumer
