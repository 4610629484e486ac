// Calibration of the FLOAT16/BFLOAT16 Gemm keys (implementation "widening"):
// their one parameter, conversion.parallel_minimum_elements, is the
// serial/parallel crossover of the conversions the product runs, found with
// the shared crossover search on a round trip (widen to float, narrow back),
// which gives back the input exactly. The product itself runs with the FLOAT
// key's configuration, calibrated there.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "gemm_conversion.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;

// Each half-precision key's share of a whole-library calibration.
constexpr std::chrono::milliseconds kWideningKeyBudget{2000};

tuning::CalibrationPath round_trip(DataType type, int team, const char* name) {
  auto scratch = std::make_shared<std::vector<float>>();
  return {name, static_cast<std::uint32_t>(team), [type, team, scratch](tuning::CalibrationProblem& p) {
            const tuning::Tensor& in = p.inputs.front();
            const std::int64_t n = in.size();
            if (scratch->size() < static_cast<std::size_t>(n)) scratch->resize(static_cast<std::size_t>(n));
            gemm_detail::widen_matrix(type, in.as<std::uint16_t>(), 1, n, n, scratch->data(), team);
            gemm_detail::narrow_matrix(type, scratch->data(), 1, n, p.output.as<std::uint16_t>(), n, team);
            return Error::ok();
          }};
}

}  // namespace

tuning::KernelTuningParameters calibrate_gemm_widening(const tuning::KernelTuningKey& key,
                                                       CalibrationContext& outer) {
  tuning::KernelTuningParameters values{key, {}};
  if (key.element_type != DataType::FLOAT16 && key.element_type != DataType::BFLOAT16) {
    outer.reporter.mark_unsupported(
        fmt::format("the widening Gemm is not implemented for {}", core::to_string(key.element_type)));
    return values;
  }
  tuning::CalibrationOptions options = outer.options;
  options.time_budget = std::min(options.time_budget, kWideningKeyBudget);
  CalibrationContext context{options, outer.execution, tuning::CalibrationBudget(options, outer.budget.threads()),
                             outer.reporter};
  const GemmWideningTuning defaults;
  const auto threads = static_cast<int>(context.budget.threads());
  const std::string parameter = "conversion.parallel_minimum_elements";
  if (threads <= 1) {
    context.reporter.select(parameter, defaults.conversion_parallel_minimum_elements,
                            "portable default kept: one thread, nothing to parallelise");
    return values;
  }
  // Input, output, the reference's output (2 bytes each) and the float scratch.
  const auto largest = static_cast<std::int64_t>(std::min<std::size_t>(options.memory_budget_bytes / 10, 1 << 24));
  tuning::CrossoverCalibration spec;
  spec.parameter = parameter;
  spec.minimum_size = 1024;
  spec.maximum_size = std::max<std::int64_t>(largest, spec.minimum_size);
  spec.portable_default = defaults.conversion_parallel_minimum_elements;
  spec.input_type = spec.output_type = key.element_type;
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}}; };
  spec.reference = round_trip(key.element_type, 1, "serial");
  spec.baseline = round_trip(key.element_type, 1, "serial");
  spec.candidate = round_trip(key.element_type, threads, "parallel");
  spec.tolerance = 0.0;  // a round trip is exact
  tuning::calibrate_crossover(context, spec, values);
  return values;
}

}  // namespace tunekit::cpu
