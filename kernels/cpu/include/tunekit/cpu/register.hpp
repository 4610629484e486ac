// Registration of tunekit_cpu with a tuning registry: the schema of every
// tunable kernel key, the committed processor profiles and the calibration
// functions.
#pragma once

#include "tunekit/cpu/tuning_defaults.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cpu {

// The version calibrated values are recorded with (the spec's library_version).
inline constexpr const char* kLibraryVersion = kTuningLibraryVersion;

// Registers the schemas (register_tunekit_cpu_schemas), the committed
// processor profiles (profiles/tunekit_cpu, compiled in) and the calibration
// functions of every tunekit_cpu kernel, once per registry. Throws TuningError
// when a schema or profile is rejected: a profile of that name is already
// registered, or another registered profile is ambiguous with one of them.
void register_tunekit_cpu(tuning::KernelTuningRegistry& registry = tuning::KernelTuningRegistry::global(),
                          tuning::KernelCalibrationRegistry& functions = tuning::KernelCalibrationRegistry::global());

// The calibration function of the unary elementwise kernels (Abs, Not).
tuning::KernelTuningParameters calibrate_unary_elementwise(const tuning::KernelTuningKey& key,
                                                           tuning::CalibrationContext& context);

// The calibration function of Gemm (FLOAT, DOUBLE): tile sizes derived from
// the cache sizes and the micro-kernel's register block, timed on the shape
// families square, large K and transposed A; then the streamed-B depth, the
// skinny-M limit, the row-streamed limit and the parallel crossover. FLOAT16 and BFLOAT16 keys go to
// calibrate_gemm_widening.
tuning::KernelTuningParameters calibrate_gemm(const tuning::KernelTuningKey& key, tuning::CalibrationContext& context);
// The FLOAT16/BFLOAT16 keys: the serial/parallel crossover of the conversions.
tuning::KernelTuningParameters calibrate_gemm_widening(const tuning::KernelTuningKey& key,
                                                       tuning::CalibrationContext& context);
// Registers calibrate_gemm for every Gemm key of the spec.
void register_gemm_calibration(tuning::KernelCalibrationRegistry& functions);

// The calibration function of the binary elementwise kernels (Add ... Greater),
// and its registration for every binary key (called by register_tunekit_cpu).
tuning::KernelTuningParameters calibrate_binary_elementwise(const tuning::KernelTuningKey& key,
                                                            tuning::CalibrationContext& context);
void register_binary_elementwise_calibration(tuning::KernelCalibrationRegistry& functions);

}  // namespace tunekit::cpu
