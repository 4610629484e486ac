// Calibration of the unary elementwise kernels through the shared crossover
// calibration: the scalar/SIMD crossover and the serial/parallel crossover
// are searched separately on the real kernel, every candidate checked
// against the serial scalar path.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "tunekit/cpu/processor_profiles.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;

std::optional<UnaryOp> op_of(const tuning::KernelTuningKey& key) {
  for (UnaryOp op : kAllUnaryOps) {
    if (key.kernel == to_string(op)) return op;
  }
  return std::nullopt;
}

// How far a SIMD path may differ from the serial scalar one, relative (for
// compare_tensors): zero where every path rounds once (Abs, Neg, Relu, Not,
// Sqrt); for the transcendentals a few units in the last place of the type,
// since the paths differ in fused multiply-adds (tunekit/cpu/unary_accuracy.hpp).
double tolerance(UnaryOp op, DataType type) {
  switch (op) {
    case UnaryOp::ABS:
    case UnaryOp::NEG:
    case UnaryOp::RELU:
    case UnaryOp::NOT:
    case UnaryOp::SQRT: return 0.0;
    default: break;
  }
  switch (type) {
    case DataType::DOUBLE: return 8 * 0x1p-52;
    case DataType::FLOAT16: return 2 * 0x1p-10;
    case DataType::BFLOAT16: return 2 * 0x1p-7;
    default: return 8 * 0x1p-23;
  }
}

// Each key's share of a whole-library calibration: tunekit_cpu has dozens
// of unary keys, so each gets at most this much of the per-key budget.
constexpr std::chrono::milliseconds kUnaryKeyBudget{1500};

// A forced path of the real kernel on the problem's one operand.
tuning::CalibrationPath path(UnaryOp op, ExecutionPath forced, int threads, const char* name) {
  return {name, static_cast<std::uint32_t>(threads), [op, forced, threads](tuning::CalibrationProblem& p) {
            return UnaryElementwiseKernel(op, UnaryElementwiseTuning{}).run(p.inputs.front(), p.output, forced, threads);
          }};
}

tuning::CrossoverCalibration crossover(const tuning::KernelTuningKey& key, UnaryOp op, std::string parameter, std::int64_t minimum,
                                       std::int64_t maximum, std::int64_t portable_default) {
  tuning::CrossoverCalibration spec;
  spec.parameter = std::move(parameter);
  spec.minimum_size = minimum;
  spec.maximum_size = maximum;
  spec.portable_default = portable_default;
  spec.input_type = spec.output_type = key.element_type;
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}}; };
  spec.reference = path(op, ExecutionPath::SERIAL_SCALAR, 1, "serial_scalar");
  spec.tolerance = tolerance(op, key.element_type);
  spec.tolerance_scale = tuning::ToleranceScale::RELATIVE;  // Exp's, Tanh's, ... small results too
  return spec;
}

}  // namespace

tuning::KernelTuningParameters calibrate_unary_elementwise(const tuning::KernelTuningKey& key,
                                                           CalibrationContext& outer) {
  tuning::CalibrationOptions options = outer.options;
  options.time_budget = std::min(options.time_budget, kUnaryKeyBudget);
  CalibrationContext context{options, outer.execution, tuning::CalibrationBudget(options, outer.budget.threads()),
                             outer.reporter, outer.incumbent};
  tuning::KernelTuningParameters values{key, {}};
  const std::optional<UnaryOp> known = op_of(key);
  if (!known || !supports(*known, key.element_type)) {
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

  const UnaryOp op = *known;
  tuning::CrossoverCalibration simd = crossover(key, op, "algorithm.simd_min_elements", 1,
                                                std::min<std::int64_t>(largest, 1 << 16), defaults.simd_min_elements);
  simd.baseline = simd.reference;
  simd.candidate = path(op, ExecutionPath::SERIAL_SIMD, 1, "serial_simd");
  tuning::calibrate_crossover(context, simd, values);

  if (threads <= 1) {
    const std::string parameter = "parallel.minimum_elements";
    context.reporter.select(parameter, tuning::kept_value(context, parameter, defaults.parallel_minimum_elements),
                            tuning::kept_label(context, parameter) + ": one thread, nothing to parallelise");
    return values;
  }
  tuning::CrossoverCalibration parallel =
      crossover(key, op, "parallel.minimum_elements", 1024, largest, defaults.parallel_minimum_elements);
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
  for (UnaryOp op : kAllUnaryOps) {
    for (DataType type : core::all_data_types()) {
      if (supports(op, type)) functions.register_function(unary_key(op, type), calibrate_unary_elementwise, kLibraryVersion);
    }
  }
  register_gemm_calibration(functions);
  register_binary_elementwise_calibration(functions);
}

}  // namespace tunekit::cpu
