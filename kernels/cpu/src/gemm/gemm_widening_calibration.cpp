// Calibration of the FLOAT16/BFLOAT16 Gemm keys (implementation "widening"):
// their one parameter, conversion.parallel_minimum_elements, is found on the
// real product, square e x e x e with conversions all serial against all
// parallel, because what decides it is the conversions between the float
// product's own work: timed on their own, back to back, they keep the team
// awake and look cheaper in parallel than inside a Gemm call. Both runs must
// give the same bits (the team of a conversion never changes its result).
// The product itself runs with the FLOAT key's configuration, calibrated there.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "paired_timing.hpp"
#include "team_crossover.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;

// Each half-precision key's share of a whole-library calibration.
constexpr std::chrono::milliseconds kWideningKeyBudget{3000};

struct Square {
  std::int64_t edge;
  tuning::Tensor a, b, c;
};

Result<Square> make_square(DataType type, std::int64_t edge, std::uint64_t seed) {
  auto a = tuning::RandnTensor(type, {edge, edge}, seed);
  auto b = tuning::RandnTensor(type, {edge, edge}, seed + 1);
  auto c = tuning::EmptyTensor(type, {edge, edge});
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  if (!c.ok()) return c.error();
  return Square{edge, std::move(a).value(), std::move(b).value(), std::move(c).value()};
}

Error run(DataType type, const GemmKernel& kernel, Square& x, int threads) {
  const std::int64_t e = x.edge;
  return kernel.run(type, Transpose::NO, Transpose::NO, e, e, e, 1.0f, x.a.as<std::uint16_t>(), e,
                    x.b.as<std::uint16_t>(), e, 0.0f, x.c.as<std::uint16_t>(), e, GemmPath::AUTO, threads);
}


}  // namespace

tuning::KernelTuningParameters calibrate_gemm_widening(const tuning::KernelTuningKey& key,
                                                       CalibrationContext& outer) {
  tuning::KernelTuningParameters values{key, {}};
  const DataType type = key.element_type;
  if (type != DataType::FLOAT16 && type != DataType::BFLOAT16) {
    outer.reporter.mark_unsupported(fmt::format("the widening Gemm is not implemented for {}", core::to_string(type)));
    return values;
  }
  tuning::CalibrationOptions options = outer.options;
  options.time_budget = std::min(options.time_budget, kWideningKeyBudget);
  CalibrationContext context{options, outer.execution, tuning::CalibrationBudget(options, outer.budget.threads()),
                             outer.reporter, outer.incumbent};
  const auto threads = static_cast<int>(context.budget.threads());
  const std::string parameter = "conversion.parallel_minimum_elements";
  // The crossover in use: the committed value (an incumbent) or else the portable default.
  const std::int64_t kept =
      tuning::kept_value(context, parameter, GemmWideningTuning{}.conversion_parallel_minimum_elements)
          .as_int()
          .value_or(GemmWideningTuning{}.conversion_parallel_minimum_elements);
  const std::string kept_because = tuning::kept_label(context, parameter) + ": ";
  if (threads <= 1) {
    context.reporter.select(parameter, kept, kept_because + "one thread, nothing to parallelise");
    return values;
  }
  GemmWideningTuning serial, parallel;
  serial.conversion_parallel_minimum_elements = std::int64_t{1} << 62;
  parallel.conversion_parallel_minimum_elements = 1;
  const GemmKernel serial_kernel(GemmPackedTuning{}, serial), parallel_kernel(GemmPackedTuning{}, parallel);
  // Both sides run the product on the whole team; only the conversions'
  // share differs, so the required margin applies, not the parallel one.
  const double margin = options.required_margin;
  gemm_detail::TeamCrossover search;  // sizes: elements of one matrix
  for (std::int64_t edge : {32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024}) {
    // A, B, C and a copy of C, 2 bytes each.
    if (!context.budget.fits_memory(static_cast<std::size_t>(edge * edge) * 8)) break;
    if (!context.budget.time_left()) {
      context.reporter.note(fmt::format("time budget spent before the square {}", edge));
      break;
    }
    auto x = make_square(type, edge, options.seed ^ static_cast<std::uint64_t>(edge));
    if (!x.ok()) break;
    const std::string shape = fmt::format("{}x{}x{}", edge, edge, edge);
    // The team of a conversion must not change a bit of C.
    if (Error e = run(type, serial_kernel, *x, threads); e.is_bad()) {
      context.reporter.record_rejected(parameter, "serial " + shape, e.message());
      break;
    }
    const std::size_t bytes = static_cast<std::size_t>(edge * edge) * sizeof(std::uint16_t);
    const auto* c_bytes = static_cast<const unsigned char*>(x->c.data());
    const std::vector<unsigned char> expected(c_bytes, c_bytes + bytes);
    tuning::poison(x->c);
    if (Error e = run(type, parallel_kernel, *x, threads); e.is_bad()) {
      context.reporter.record_rejected(parameter, "parallel " + shape, e.message());
      break;
    }
    if (std::memcmp(expected.data(), x->c.data(), bytes) != 0) {
      context.reporter.record_rejected(parameter, "parallel " + shape, "C differs from the serial conversions'");
      break;
    }
    const std::optional<tuning::CrossoverProbe> parallel_conversions = gemm_detail::judge_pair(
        context, parameter, margin, "serial conversions " + shape,
        [&] { return run(type, serial_kernel, *x, threads); }, "parallel conversions " + shape,
        [&] { return run(type, parallel_kernel, *x, threads); });
    if (!parallel_conversions) break;
    if (search.record(static_cast<double>(edge * edge), parallel_conversions->verdict)) break;
  }
  const std::optional<double> crossover = search.crossover();
  if (!crossover) {
    const std::int64_t portable = GemmWideningTuning{}.conversion_parallel_minimum_elements;
    if (kept != portable && search.contradicts(static_cast<double>(kept)) &&
        !search.contradicts(static_cast<double>(portable))) {
      // Serial conversions won where the committed value runs them in
      // parallel, and not where the portable default would: the default is
      // the challenger that beat it.
      values.values[parameter] = portable;
      context.reporter.select(parameter, portable,
                              fmt::format("serial conversions faster by {:.0f}% at or above the committed {} "
                                          "elements, and parallel ones never won twice in a row",
                                          100 * margin, kept));
      return values;
    }
    context.reporter.select(parameter, kept, kept_because + "parallel conversions never won twice in a row");
    return values;
  }
  if (search.keeps(static_cast<double>(kept))) {
    context.reporter.select(parameter, kept,
                            fmt::format("{}parallel conversions win from about {:.0f} elements per matrix, and no "
                                        "square below it contradicts {}",
                                        kept_because, *crossover, kept));
    return values;
  }
  const auto threshold = std::max<std::int64_t>(1, static_cast<std::int64_t>(*crossover));
  values.values[parameter] = threshold;
  context.reporter.select(parameter, threshold,
                          fmt::format("parallel conversions faster by {:.0f}% inside the square product from "
                                      "about {} elements per matrix",
                                      100 * margin, threshold));
  return values;
}

}  // namespace tunekit::cpu
