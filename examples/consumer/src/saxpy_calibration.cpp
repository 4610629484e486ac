// Calibration of Saxpy through tunekit's shared crossover calibration: each
// crossover is searched on the real kernel between two forced paths, and
// every candidate's output is compared with the serial scalar path (exactly:
// all paths round alike, see saxpy.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "consumer/register.hpp"
#include "consumer/saxpy.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace consumer {
namespace {

namespace tuning = tunekit::tuning;

// Any alpha that is not 0 or 1 exercises both the product and the sum.
constexpr double kAlpha = 1.75;

// A forced path of the real kernel: out = alpha * inputs[0] + inputs[1].
tuning::CalibrationPath path(SaxpyPath forced, int threads) {
  return {to_string(forced), static_cast<std::uint32_t>(threads), [forced, threads](tuning::CalibrationProblem& p) {
            return SaxpyKernel(SaxpyTuning{}).run(kAlpha, p.inputs[0], p.inputs[1], p.output, forced, threads);
          }};
}

tuning::CrossoverCalibration crossover(const tuning::KernelTuningKey& key, std::string parameter,
                                       std::int64_t minimum, std::int64_t maximum, std::int64_t portable_default) {
  tuning::CrossoverCalibration spec;
  spec.parameter = std::move(parameter);
  spec.minimum_size = minimum;
  spec.maximum_size = maximum;
  spec.portable_default = portable_default;
  spec.input_type = spec.output_type = key.element_type;
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}, {size}}; };
  spec.reference = path(SaxpyPath::SERIAL_SCALAR, 1);
  return spec;
}

}  // namespace

tuning::KernelTuningParameters calibrate_saxpy(const tuning::KernelTuningKey& key, tuning::CalibrationContext& context) {
  tuning::KernelTuningParameters values{key, {}};
  if (!saxpy_openmp_simd_supports(key.element_type)) {
    context.reporter.mark_unsupported(
        fmt::format("Saxpy is not implemented for {}", tunekit::core::to_string(key.element_type)));
    return values;
  }
  const SaxpyTuning defaults;
  const auto threads = static_cast<int>(context.budget.threads());
  // The largest size whose x, y, output and reference output fit the memory budget.
  const auto fits = static_cast<std::int64_t>(context.options.memory_budget_bytes /
                                              (4 * tunekit::core::size_of(key.element_type)));
  const std::int64_t largest = std::min<std::int64_t>(fits, std::int64_t{1} << 24);

  tuning::CrossoverCalibration simd = crossover(key, "algorithm.simd_min_elements", 1,
                                                std::min<std::int64_t>(largest, 1 << 14), defaults.simd_min_elements);
  simd.baseline = simd.reference;
  simd.candidate = path(SaxpyPath::SERIAL_SIMD, 1);
  tuning::calibrate_crossover(context, simd, values);

  if (threads <= 1) {
    context.reporter.select("parallel.minimum_elements", defaults.parallel_minimum_elements,
                            "portable default kept: one thread, nothing to parallelise");
    return values;
  }
  tuning::CrossoverCalibration parallel =
      crossover(key, "parallel.minimum_elements", 1024, largest, defaults.parallel_minimum_elements);
  parallel.baseline = path(SaxpyPath::SERIAL_SIMD, 1);
  parallel.candidate = path(SaxpyPath::PARALLEL_SIMD, threads);
  tuning::calibrate_crossover(context, parallel, values);
  // A thread count means something only with the crossover measured with it.
  if (values.values.count(parallel.parameter)) {
    values.values["parallel.maximum_threads"] = std::int64_t{threads};
    context.reporter.select("parallel.maximum_threads", std::int64_t{threads},
                            "the thread count the parallel crossover was measured with");
  }
  return values;
}

void register_kernels(tuning::KernelTuningRegistry& registry) {
  register_consumer_kernels_schemas(registry);
  for (const tuning::KernelTuningKey& key : consumer_kernels_tuning_keys()) {
    tuning::RegisterKernelCalibrationFunction(key, calibrate_saxpy, kTuningLibraryVersion);
  }
}

}  // namespace consumer
