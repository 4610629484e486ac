// The calibration API shared by unary and binary kernels: a threshold
// between a baseline path and a candidate path (scalar/SIMD,
// serial/parallel) is found with the crossover search on the real kernel,
// on deterministic operands of equal or broadcasting shapes. Every
// candidate's output is checked against the kernel's serial portable path,
// every measurement, rejection and decision is reported, and the portable
// default stays unless the candidate won twice in a row by the margin (the
// parallel margin for a candidate on more threads than the baseline).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::tuning {

// One problem size: the operands and the output a path writes.
struct CalibrationProblem {
  std::int64_t size = 0;
  std::vector<Tensor> inputs;
  Tensor output;
};

// One way of running the kernel (a forced execution path).
struct CalibrationPath {
  std::string name;           // "serial_scalar", "parallel_simd"
  std::uint32_t threads = 1;  // checked against the thread budget
  std::function<Error(CalibrationProblem&)> run;
};

struct CrossoverCalibration {
  std::string parameter;  // "parallel.minimum_elements"
  std::int64_t minimum_size = 1;
  std::int64_t maximum_size = 1 << 20;
  std::int64_t portable_default = 0;
  DataType input_type = DataType::FLOAT;
  DataType output_type = DataType::FLOAT;
  // The operand shapes of a problem of `size` output elements: {{size}} for
  // a unary kernel, {{size}, {size}} for an equal-shape binary kernel,
  // {{size / 64, 64}, {64}} for a broadcasting one.
  std::function<std::vector<Shape>(std::int64_t size)> operand_shapes;
  CalibrationPath reference;  // the serial portable path
  CalibrationPath baseline;
  CalibrationPath candidate;
  double tolerance = 0.0;  // for compare_tensors, relative to tolerance_scale
  ToleranceScale tolerance_scale = ToleranceScale::AT_LEAST_ONE;
};

// Searches, verifies, reports and decides; writes the chosen threshold into
// `values` only when one was found. Budget exhaustion, a wrong result or a
// kernel error stop the search: the default stays and the reason is noted.
void calibrate_crossover(CalibrationContext& context, const CrossoverCalibration& spec,
                         KernelTuningParameters& values);

}  // namespace tunekit::tuning
