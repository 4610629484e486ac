// Calibration of the unary elementwise kernels through the shared crossover
// calibration: the scalar/SIMD crossover and the serial/parallel crossover
// are searched separately on the real kernel, every candidate checked
// against the serial scalar path.
#include <fmt/format.h>

#include <algorithm>

#include "tunekit/cpu/processor_profiles.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;

UnaryOp op_of(const tuning::KernelTuningKey& key) { return key.kernel == "Not" ? UnaryOp::NOT : UnaryOp::ABS; }

// A forced path of the real kernel on the problem's one operand.
tuning::CalibrationPath path(UnaryOp op, ExecutionPath forced, int threads, const char* name) {
  return {name, static_cast<std::uint32_t>(threads), [op, forced, threads](tuning::CalibrationProblem& p) {
            return UnaryElementwiseKernel(op, UnaryElementwiseTuning{}).run(p.inputs.front(), p.output, forced, threads);
          }};
}

tuning::CrossoverCalibration crossover(const tuning::KernelTuningKey& key, std::string parameter, std::int64_t minimum,
                                       std::int64_t maximum, std::int64_t portable_default) {
  tuning::CrossoverCalibration spec;
  spec.parameter = std::move(parameter);
  spec.minimum_size = minimum;
  spec.maximum_size = maximum;
  spec.portable_default = portable_default;
  spec.input_type = spec.output_type = key.element_type;
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}}; };
  spec.reference = path(op_of(key), ExecutionPath::SERIAL_SCALAR, 1, "serial_scalar");
  return spec;
}

}  // namespace

tuning::KernelTuningParameters calibrate_unary_elementwise(const tuning::KernelTuningKey& key,
                                                           CalibrationContext& context) {
  tuning::KernelTuningParameters values{key, {}};
  if (!supports(op_of(key), key.element_type)) {
    context.reporter.mark_unsupported(fmt::format("{} is not implemented for {}", key.kernel,
                                                  core::to_string(key.element_type)));
    return values;
  }
  const UnaryElementwiseTuning defaults;
  const auto threads = static_cast<int>(context.budget.threads());
  // The largest size that fits the memory budget with the input, the output
  // and the reference output.
  const auto fits = static_cast<std::int64_t>(context.options.memory_budget_bytes /
                                              (3 * core::size_of(key.element_type)));
  const std::int64_t largest = std::min<std::int64_t>(fits, std::int64_t{1} << 24);

  const UnaryOp op = op_of(key);
  tuning::CrossoverCalibration simd = crossover(key, "algorithm.simd_min_elements", 1,
                                                std::min<std::int64_t>(largest, 1 << 16), defaults.simd_min_elements);
  simd.baseline = simd.reference;
  simd.candidate = path(op, ExecutionPath::SERIAL_SIMD, 1, "serial_simd");
  tuning::calibrate_crossover(context, simd, values);

  if (threads <= 1) {
    context.reporter.select("parallel.minimum_elements", defaults.parallel_minimum_elements,
                            "portable default kept: one thread, nothing to parallelise");
    return values;
  }
  tuning::CrossoverCalibration parallel =
      crossover(key, "parallel.minimum_elements", 1024, largest, defaults.parallel_minimum_elements);
  parallel.baseline = path(op, ExecutionPath::SERIAL_SIMD, 1, "serial_simd");
  parallel.candidate = path(op, ExecutionPath::PARALLEL_SIMD, threads, "parallel_simd");
  tuning::calibrate_crossover(context, parallel, values);
  // The thread count is a measured value only together with the crossover
  // it was measured at.
  if (values.values.count(parallel.parameter)) {
    values.values["parallel.maximum_threads"] = std::int64_t{threads};
    context.reporter.select("parallel.maximum_threads", std::int64_t{threads},
                            "the thread count the parallel crossover was measured with");
  }
  return values;
}

void register_tunekit_cpu(tuning::KernelTuningRegistry& registry, tuning::KernelCalibrationRegistry& functions) {
  register_tunekit_cpu_schemas(registry);
  // The committed profiles validate against the schemas just registered.
  if (Error e = register_processor_profiles(registry); e.is_bad()) {
    throw TuningError("tunekit_cpu processor profiles: " + e.message());
  }
  for (const tuning::KernelTuningKey& key : tunekit_cpu_tuning_keys()) {
    if (key.kernel == "Abs" || key.kernel == "Not") {
      functions.register_function(key, calibrate_unary_elementwise, kLibraryVersion);
    }
  }
  register_binary_elementwise_calibration(functions);
}

}  // namespace tunekit::cpu
