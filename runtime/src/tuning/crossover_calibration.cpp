// One probe: fresh operands, the reference output, then baseline and
// candidate each poisoned, run and verified, then timed taking turns.
#include "tunekit/tuning/crossover_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::tuning {
namespace {

Result<CalibrationProblem> make_problem(const CalibrationContext& context, const CrossoverCalibration& spec,
                                        std::int64_t size) {
  const std::vector<Shape> shapes = spec.operand_shapes(size);
  Shape output_shape = shapes.empty() ? Shape{size} : shapes.front();
  for (std::size_t i = 1; i < shapes.size(); ++i) {
    Result<Shape> joined = broadcast_shapes(output_shape, shapes[i]);
    if (!joined.ok()) return joined.error();
    output_shape = *joined;
  }
  Result<std::vector<Tensor>> inputs =
      RandnOperands(spec.input_type, shapes, context.options.seed ^ static_cast<std::uint64_t>(size));
  if (!inputs.ok()) return inputs.error();
  Result<Tensor> output = EmptyTensor(spec.output_type, output_shape);
  if (!output.ok()) return output.error();
  return CalibrationProblem{size, std::move(inputs).value(), std::move(output).value()};
}

std::size_t problem_bytes(const CrossoverCalibration& spec, std::int64_t size) {
  std::size_t bytes = 0;
  for (const Shape& shape : spec.operand_shapes(size)) {
    bytes += static_cast<std::size_t>(std::max<std::int64_t>(element_count(shape), 0)) * core::size_of(spec.input_type);
  }
  // The output twice: the reference and the path under test.
  return bytes + 2 * static_cast<std::size_t>(size) * core::size_of(spec.output_type);
}

Result<PathTimings> probe(CalibrationContext& context, const CrossoverCalibration& spec, std::int64_t size,
                          const CrossoverOptions& search) {
  const std::string what = fmt::format("size={} {} vs {}", size, spec.baseline.name, spec.candidate.name);
  Error admitted = context.budget.admit(problem_bytes(spec, size), std::max(spec.baseline.threads, spec.candidate.threads));
  if (admitted.is_bad()) {
    context.reporter.record_rejected(spec.parameter, what, admitted.message());
    return admitted;
  }
  Result<CalibrationProblem> problem = make_problem(context, spec, size);
  if (!problem.ok()) return problem.error();
  TUNEKIT_RETURN_IF_ERROR(spec.reference.run(*problem));
  Result<Tensor> reference = EmptyTensor(spec.output_type, problem->output.shape);
  if (!reference.ok()) return reference.error();
  std::copy_n(static_cast<const unsigned char*>(problem->output.data()), problem->output.bytes(),
              static_cast<unsigned char*>(reference->data()));

  for (const CalibrationPath* path : {&spec.baseline, &spec.candidate}) {
    poison(problem->output);
    TUNEKIT_RETURN_IF_ERROR(path->run(*problem));
    Error same = compare_tensors(*reference, problem->output, spec.tolerance, spec.tolerance_scale);
    if (same.is_bad()) {
      context.reporter.record_rejected(spec.parameter, fmt::format("size={} {}", size, path->name), same.message());
      return Error(ErrorCode::EXECUTION_FAILED, fmt::format("{} path: {}", path->name, same.message()));
    }
  }
  // The two paths take turns, one sample each: all the samples of one path
  // in a row took a few hundred microseconds at small sizes, short enough
  // for one slow phase of a shared machine to fall on one path only. While
  // the comparison cannot tell them apart (undecided), more rounds are
  // taken, up to three times the first count, as a race would.
  CalibrationProblem& p = *problem;
  const int rounds = std::max(context.options.repetitions, 5);
  PathTimings timings;
  for (int taken = 0; taken < 3 * rounds; taken += rounds) {
    Result<std::vector<std::vector<double>>> samples = measure_interleaved(
        {[&p, &spec] { return spec.baseline.run(p); }, [&p, &spec] { return spec.candidate.run(p); }}, rounds);
    if (!samples.ok()) return samples.error();
    timings.baseline_ms.insert(timings.baseline_ms.end(), (*samples)[0].begin(), (*samples)[0].end());
    timings.candidate_ms.insert(timings.candidate_ms.end(), (*samples)[1].begin(), (*samples)[1].end());
    if (!judge(size, timings, search.margin, search.confidence).undecided) break;
  }
  context.reporter.record_candidate(spec.parameter, fmt::format("size={} path={}", size, spec.baseline.name),
                                    timings.baseline_ms);
  context.reporter.record_candidate(spec.parameter, fmt::format("size={} path={}", size, spec.candidate.name),
                                    timings.candidate_ms);
  return timings;
}

}  // namespace

void calibrate_crossover(CalibrationContext& context, const CrossoverCalibration& spec, KernelTuningParameters& values) {
  CrossoverOptions search;
  search.minimum_size = spec.minimum_size;
  search.maximum_size = std::max(spec.minimum_size, spec.maximum_size);
  search.margin = required_margin_for(context.options, spec.baseline.threads, spec.candidate.threads);
  // The threshold in use is the one to keep unless the probes contradict it:
  // the committed value (an incumbent) or else the portable default.
  const TuningValue kept = kept_value(context, spec.parameter, TuningValue(spec.portable_default));
  const std::int64_t preferred = kept.as_int().value_or(spec.portable_default);
  const std::string label = kept_label(context, spec.parameter);
  if (preferred > 0) search.preferred_threshold = preferred;
  Result<CrossoverResult> result =
      find_crossover(search, [&](std::int64_t size) { return probe(context, spec, size, search); });
  if (!result.ok()) {
    context.reporter.note(fmt::format("{}: search stopped ({}); keeping {}", spec.parameter, result.error().message(),
                                      preferred));
    context.reporter.select(spec.parameter, preferred, label + ": " + result.error().message());
    return;
  }
  context.reporter.record_crossover(spec.parameter, *result);
  if (result->threshold) {
    values.values[spec.parameter] = *result->threshold;
    context.reporter.select(spec.parameter, *result->threshold, result->reason);
  } else {
    context.reporter.select(spec.parameter, preferred, label + ": " + result->reason);
  }
}

}  // namespace tunekit::tuning
