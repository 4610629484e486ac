// Calibration of the binary elementwise kernels through the shared crossover
// calibration: per operation and operand type (one key each), the
// scalar/SIMD crossover and the serial/parallel crossover on equal-shape
// operands, every candidate checked against the serial scalar path. The
// searched sizes are capped (2^14 for SIMD, 2^22 for parallel) so that a key
// takes about a second: with some 60 binary keys the whole library must
// calibrate within minutes.
#include <fmt/format.h>

#include <algorithm>

#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;

constexpr std::int64_t kSimdSearchLimit = std::int64_t{1} << 14;
constexpr std::int64_t kParallelSearchLimit = std::int64_t{1} << 22;

tuning::CalibrationPath path(BinaryOp op, ExecutionPath forced, int threads, const char* name) {
  return {name, static_cast<std::uint32_t>(threads), [op, forced, threads](tuning::CalibrationProblem& p) {
            return BinaryElementwiseKernel(op, BinaryElementwiseTuning{})
                .run(p.inputs[0], p.inputs[1], p.output, forced, threads);
          }};
}

tuning::CrossoverCalibration crossover(BinaryOp op, DataType type, std::string parameter, std::int64_t minimum,
                                       std::int64_t maximum, std::int64_t portable_default) {
  tuning::CrossoverCalibration spec;
  spec.parameter = std::move(parameter);
  spec.minimum_size = minimum;
  spec.maximum_size = maximum;
  spec.portable_default = portable_default;
  spec.input_type = type;
  spec.output_type = output_type(op, type);
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}, {size}}; };
  spec.reference = path(op, ExecutionPath::SERIAL_SCALAR, 1, "serial_scalar");
  spec.tolerance_scale = tuning::ToleranceScale::RELATIVE;  // Pow's small results too
  // Every path gives the same bits, but Pow: on AVX-512 and AVX2 float Pow
  // is computed in double and may differ from powf by one ulp of float (and so
  // by one of a 16-bit type after rounding), and double Pow (a double-double
  // log, AVX-512 and AVX2) from pow by one ulp of double.
  if (op == BinaryOp::POW) {
    switch (type) {
      case DataType::DOUBLE: spec.tolerance = 0x1p-51; break;
      case DataType::FLOAT: spec.tolerance = 0x1p-22; break;
      case DataType::FLOAT16: spec.tolerance = 0x1p-10; break;
      case DataType::BFLOAT16: spec.tolerance = 0x1p-7; break;
      default: break;
    }
  }
  return spec;
}

}  // namespace

tuning::KernelTuningParameters calibrate_binary_elementwise(const tuning::KernelTuningKey& key,
                                                            CalibrationContext& context) {
  tuning::KernelTuningParameters values{key, {}};
  const std::optional<BinaryOp> op = parse_binary_op(key.kernel);
  if (!op || !supports(*op, key.element_type)) {
    context.reporter.mark_unsupported(
        fmt::format("{} is not a binary kernel implemented for {}", key.kernel, core::to_string(key.element_type)));
    return values;
  }
  const BinaryElementwiseTuning defaults;
  const auto threads = static_cast<int>(context.budget.threads());
  // Two operands, the output and the reference output must fit the memory budget.
  const auto fits = static_cast<std::int64_t>(context.options.memory_budget_bytes /
                                              (4 * core::size_of(key.element_type)));
  const std::int64_t largest = std::min(fits, kParallelSearchLimit);

  tuning::CrossoverCalibration simd = crossover(*op, key.element_type, "algorithm.simd_min_elements", 1,
                                                std::min(largest, kSimdSearchLimit), defaults.simd_min_elements);
  simd.baseline = simd.reference;
  simd.candidate = path(*op, ExecutionPath::SERIAL_SIMD, 1, "serial_simd");
  tuning::calibrate_crossover(context, simd, values);

  if (threads <= 1) {
    const std::string parameter = "parallel.minimum_elements";
    context.reporter.select(parameter, tuning::kept_value(context, parameter, defaults.parallel_minimum_elements),
                            tuning::kept_label(context, parameter) + ": one thread, nothing to parallelise");
    return values;
  }
  tuning::CrossoverCalibration parallel = crossover(*op, key.element_type, "parallel.minimum_elements", 1024, largest,
                                                    defaults.parallel_minimum_elements);
  parallel.baseline = path(*op, ExecutionPath::SERIAL_SIMD, 1, "serial_simd");
  parallel.candidate = path(*op, ExecutionPath::PARALLEL_SIMD, threads, "parallel_simd");
  tuning::calibrate_crossover(context, parallel, values);
  if (values.values.count(parallel.parameter)) {
    values.values["parallel.maximum_threads"] = std::int64_t{threads};
    context.reporter.select("parallel.maximum_threads", std::int64_t{threads},
                            "the thread count the parallel crossover was measured with");
  }
  return values;
}

void register_binary_elementwise_calibration(tuning::KernelCalibrationRegistry& functions) {
  for (BinaryOp op : kAllBinaryOps) {
    for (DataType type : {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::BFLOAT16, DataType::INT32,
                          DataType::INT64, DataType::BOOL}) {
      if (supports(op, type)) functions.register_function(binary_key(op, type), calibrate_binary_elementwise, kLibraryVersion);
    }
  }
}

}  // namespace tunekit::cpu
