// The maximum error of the transcendentals (and Sqrt), measured in ULP on
// every instruction-set path this processor runs: float over a stratified
// sample of every exponent (both signs, subnormals included, the smallest
// and largest significand of each exponent plus random ones: about 1.1e7
// values) and the special values, against a double reference; double over a
// stratified sample against a long double reference. Each measured maximum
// must stay within max_ulp() (tunekit/cpu/unary_accuracy.hpp); SLEEF's
// measured maximum on the same values is printed beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/unary_accuracy.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "ulp_error.hpp"

#if defined(TUNEKIT_HAVE_SLEEF)
#include <sleef.h>
#endif

namespace tunekit::cpu {
namespace {

template <class F>
struct Traits;
template <>
struct Traits<float> {
  using U = std::uint32_t;
  using Wide = double;
  static constexpr int kExponents = 255;  // biased 0 (subnormal) to 254
  static constexpr int kMantissa = 23;
  static constexpr int kPerExponent = 21000;
  static constexpr DataType kType = DataType::FLOAT;
};
template <>
struct Traits<double> {
  using U = std::uint64_t;
  using Wide = long double;
  static constexpr int kExponents = 2047;
  static constexpr int kMantissa = 52;
  static constexpr int kPerExponent = 250;
  static constexpr DataType kType = DataType::DOUBLE;
};

// The exact value in Traits<F>::Wide (double for float, long double for
// double) and the error of an F result in ULP.
template <class F>
double error_of(UnaryOp op, F input, F got) {
  using W = typename Traits<F>::Wide;
  return ulp::ulp_error(Traits<F>::kType, ulp::reference(op, static_cast<W>(input)), got);
}

template <class F>
std::vector<F> stratified_sample() {
  using U = typename Traits<F>::U;
  std::vector<F> values;
  std::mt19937_64 rng(2024);
  const U mantissa_mask = (U{1} << Traits<F>::kMantissa) - 1;
  for (U sign : {U{0}, U{1}}) {
    for (U e = 0; e < static_cast<U>(Traits<F>::kExponents); ++e) {
      const U head = (sign << (sizeof(U) * 8 - 1)) | (e << Traits<F>::kMantissa);
      values.push_back(std::bit_cast<F>(head));
      values.push_back(std::bit_cast<F>(head | mantissa_mask));
      for (int k = 0; k < Traits<F>::kPerExponent; ++k) {
        values.push_back(std::bit_cast<F>(head | (static_cast<U>(rng()) & mantissa_mask)));
      }
    }
  }
  const F inf = std::numeric_limits<F>::infinity();
  for (F special : {inf, -inf, std::numeric_limits<F>::quiet_NaN(), F(0), -F(0), std::numeric_limits<F>::denorm_min(),
                    std::numeric_limits<F>::min(), std::numeric_limits<F>::max(), -std::numeric_limits<F>::max()}) {
    values.push_back(special);
  }
  // Just around the overflow and underflow thresholds of exp.
  const F thresholds[] = {std::log(std::numeric_limits<F>::max()), std::log(std::numeric_limits<F>::min()),
                          std::log(std::numeric_limits<F>::denorm_min())};
  for (F t : thresholds) {
    F x = t;
    for (int k = 0; k < 64; ++k) x = std::nextafter(x, -inf);
    for (int k = 0; k < 128; ++k, x = std::nextafter(x, inf)) values.push_back(x);
  }
  return values;
}

template <class F>
struct Measured {
  double max_ulp = 0;
  F worst_input = 0;
};

template <class F, class Fn>
Measured<F> measure(UnaryOp op, const std::vector<F>& inputs, const Fn& function) {
  Measured<F> m;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const double e = error_of<F>(op, inputs[i], function(i));
    if (!(e <= m.max_ulp)) {
      m.max_ulp = e;
      m.worst_input = inputs[i];
    }
  }
  return m;
}

#if defined(TUNEKIT_HAVE_SLEEF)
float sleef(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::EXP: return Sleef_expf_u10(x);
    case UnaryOp::LOG: return Sleef_logf_u10(x);
    case UnaryOp::TANH: return Sleef_tanhf_u10(x);
    case UnaryOp::SIGMOID: return 1.0f / (1.0f + Sleef_expf_u10(-x));
    case UnaryOp::ERF: return Sleef_erff_u10(x);
    case UnaryOp::SQRT: return Sleef_sqrtf_u05(x);
    default: return x;
  }
}
double sleef(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::EXP: return Sleef_exp_u10(x);
    case UnaryOp::LOG: return Sleef_log_u10(x);
    case UnaryOp::TANH: return Sleef_tanh_u10(x);
    case UnaryOp::SIGMOID: return 1.0 / (1.0 + Sleef_exp_u10(-x));
    case UnaryOp::ERF: return Sleef_erf_u10(x);
    case UnaryOp::SQRT: return Sleef_sqrt_u05(x);
    default: return x;
  }
}
#endif

template <class F>
void check_every_isa(UnaryOp op) {
  const std::vector<F> inputs = stratified_sample<F>();
  const auto n = static_cast<std::int64_t>(inputs.size());
  tuning::Tensor in = tuning::EmptyTensor(Traits<F>::kType, {n}).value();
  std::copy(inputs.begin(), inputs.end(), in.as<F>());
  tuning::Tensor out = tuning::EmptyTensor(Traits<F>::kType, {n}).value();
  const UnaryElementwiseKernel kernel(op, {});
  const double bound = max_ulp(op, Traits<F>::kType);
  std::string line;
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (!can_run(isa, here)) {
      line += std::string(to_string(isa)) + " not run (processor lacks it); ";
      continue;
    }
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    tuning::poison(out);
    ASSERT_TRUE(kernel.run(in, out, ExecutionPath::SERIAL_SIMD).is_good());
    const F* got = out.as<F>();
    const Measured<F> m = measure<F>(op, inputs, [got](std::size_t i) { return got[i]; });
    EXPECT_LE(m.max_ulp, bound) << to_string(op) << " " << to_string(isa) << " worst at x=" << m.worst_input;
    char text[160];
    std::snprintf(text, sizeof text, "%s %.3f ULP (x=%.9g); ", std::string(to_string(isa)).c_str(), m.max_ulp,
                  static_cast<double>(m.worst_input));
    line += text;
  }
#if defined(TUNEKIT_HAVE_SLEEF)
  const Measured<F> s = measure<F>(op, inputs, [&inputs, op](std::size_t i) { return sleef(op, inputs[i]); });
  char text[96];
  std::snprintf(text, sizeof text, "SLEEF %.3f ULP (x=%.9g)", s.max_ulp, static_cast<double>(s.worst_input));
  line += text;
#endif
  std::printf("[accuracy] %s %s over %zu values, bound %.2f: %s\n", std::string(to_string(op)).c_str(),
              std::string(core::to_string(Traits<F>::kType)).c_str(), inputs.size(), bound, line.c_str());
}

class UnaryAccuracy : public ::testing::TestWithParam<UnaryOp> {};

TEST_P(UnaryAccuracy, FloatMaximumUlpOverEveryExponentIsWithinTheDocumentedBound) { check_every_isa<float>(GetParam()); }

TEST_P(UnaryAccuracy, DoubleMaximumUlpOverEveryExponentIsWithinTheDocumentedBound) {
  check_every_isa<double>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Transcendentals, UnaryAccuracy,
                         ::testing::Values(UnaryOp::EXP, UnaryOp::LOG, UnaryOp::TANH, UnaryOp::SIGMOID, UnaryOp::ERF,
                                           UnaryOp::SQRT),
                         [](const ::testing::TestParamInfo<UnaryOp>& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace tunekit::cpu
