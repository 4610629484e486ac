// Calibration of the unary elementwise kernels: the scalar/SIMD crossover and
// the serial/parallel crossover are searched separately on the real kernel,
// every candidate output is checked against the serial scalar path, and a
// threshold is changed only when the search found two consecutive wins by
// the required margin; otherwise the portable default stays.
#include <fmt/format.h>

#include <algorithm>

#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;
using tuning::PathTimings;

UnaryOp op_of(const tuning::KernelTuningKey& key) { return key.kernel == "Not" ? UnaryOp::NOT : UnaryOp::ABS; }

struct PathSpec {
  ExecutionPath path;
  int threads;
  const char* name;
};

// Runs baseline and candidate at one size on fresh random inputs, checks the
// candidate's output against the scalar path, and times both.
Result<PathTimings> probe(const tuning::KernelTuningKey& key, CalibrationContext& context, const std::string& parameter,
                          std::int64_t size, PathSpec baseline, PathSpec candidate) {
  const std::size_t bytes = 2 * static_cast<std::size_t>(size) * core::size_of(key.element_type);
  const std::string what = fmt::format("size={} {} vs {}", size, baseline.name, candidate.name);
  Error admitted = context.budget.admit(bytes, static_cast<std::uint32_t>(std::max(baseline.threads, candidate.threads)));
  if (admitted.is_bad()) {
    context.reporter.record_rejected(parameter, what, admitted.message());
    return admitted;
  }
  const UnaryElementwiseKernel kernel(op_of(key), UnaryElementwiseTuning{});
  Result<tuning::Tensor> input = tuning::RandnTensor(key.element_type, {size}, context.options.seed + static_cast<std::uint64_t>(size));
  Result<tuning::Tensor> reference = tuning::EmptyTensor(key.element_type, {size});
  Result<tuning::Tensor> output = tuning::EmptyTensor(key.element_type, {size});
  if (!input.ok() || !reference.ok() || !output.ok()) return Error(ErrorCode::EXECUTION_FAILED, "cannot allocate inputs");
  TUNEKIT_RETURN_IF_ERROR(kernel.run(*input, *reference, ExecutionPath::SERIAL_SCALAR));

  PathTimings timings;
  for (const PathSpec* spec : {&baseline, &candidate}) {
    tuning::poison(*output);
    TUNEKIT_RETURN_IF_ERROR(kernel.run(*input, *output, spec->path, spec->threads));
    Error same = tuning::compare_tensors(*reference, *output);
    if (same.is_bad()) {
      context.reporter.record_rejected(parameter, fmt::format("size={} {}", size, spec->name), same.message());
      return Error(ErrorCode::EXECUTION_FAILED, fmt::format("{} path: {}", spec->name, same.message()));
    }
    Result<std::vector<double>> samples = tuning::measure_repetitions(
        [&] { return kernel.run(*input, *output, spec->path, spec->threads); }, context.options.repetitions);
    if (!samples.ok()) return samples.error();
    context.reporter.record_candidate(parameter, fmt::format("size={} path={}", size, spec->name), *samples);
    (spec == &baseline ? timings.baseline_ms : timings.candidate_ms) = std::move(samples).value();
  }
  return timings;
}

// Searches one crossover and selects it, or keeps the default with the reason.
void calibrate_threshold(const tuning::KernelTuningKey& key, CalibrationContext& context, const std::string& parameter,
                         std::int64_t minimum, std::int64_t maximum, PathSpec baseline, PathSpec candidate,
                         std::int64_t portable_default, tuning::KernelTuningParameters& values) {
  tuning::CrossoverOptions search;
  search.minimum_size = minimum;
  search.maximum_size = std::max(minimum, maximum);
  search.margin = context.options.required_margin;
  auto result = tuning::find_crossover(search, [&](std::int64_t size) {
    return probe(key, context, parameter, size, baseline, candidate);
  });
  if (!result.ok()) {
    context.reporter.note(fmt::format("{}: search stopped ({}); keeping the portable default {}", parameter,
                                      result.error().message(), portable_default));
    return;
  }
  context.reporter.record_crossover(parameter, *result);
  if (result->threshold) {
    values.values[parameter] = *result->threshold;
    context.reporter.select(parameter, *result->threshold, result->reason);
  } else {
    context.reporter.select(parameter, portable_default, "portable default kept: " + result->reason);
  }
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
  // The largest size that fits the memory budget with input and output.
  const auto fits = static_cast<std::int64_t>(context.options.memory_budget_bytes /
                                              (2 * core::size_of(key.element_type)));
  const std::int64_t largest = std::min<std::int64_t>(fits, std::int64_t{1} << 24);

  calibrate_threshold(key, context, "algorithm.simd_min_elements", 1, std::min<std::int64_t>(largest, 1 << 16),
                      {ExecutionPath::SERIAL_SCALAR, 1, "serial_scalar"}, {ExecutionPath::SERIAL_SIMD, 1, "serial_simd"},
                      defaults.simd_min_elements, values);
  values.values["parallel.maximum_threads"] = std::int64_t{threads};
  context.reporter.select("parallel.maximum_threads", std::int64_t{threads}, "the thread budget of this execution");
  if (threads > 1) {
    calibrate_threshold(key, context, "parallel.minimum_elements", 1024, largest,
                        {ExecutionPath::SERIAL_SIMD, 1, "serial_simd"},
                        {ExecutionPath::PARALLEL_SIMD, threads, "parallel_simd"}, defaults.parallel_minimum_elements,
                        values);
  } else {
    context.reporter.select("parallel.minimum_elements", defaults.parallel_minimum_elements,
                            "portable default kept: one thread, nothing to parallelise");
  }
  return values;
}

void register_tunekit_cpu(tuning::KernelTuningRegistry& registry, tuning::KernelCalibrationRegistry& functions) {
  for (UnaryOp op : {UnaryOp::ABS, UnaryOp::NOT}) {
    for (DataType type : core::all_data_types()) {
      if (!supports(op, type)) continue;
      const tuning::KernelTuningKey key = unary_key(op, type);
      registry.register_schema(unary_elementwise_binding().schema(key));
      functions.register_function(key, calibrate_unary_elementwise, kLibraryVersion);
    }
  }
}

}  // namespace tunekit::cpu
