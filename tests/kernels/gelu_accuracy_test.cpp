// gelu_float_array (the pointwise engines' and the matmul epilogue's GELU)
// against x erfc(-x / sqrt 2) / 2 in long double, on every instruction-set
// path this processor runs: 2^20 random inputs over [-14, 14] (beyond which
// the result is x or underflows), magnitudes from 1e-30 to 20 of both signs,
// and the special values; outputs poisoned first, the array's tail included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "ulp_error.hpp"

namespace tunekit::cpu {
namespace {

// The largest error in float ULP at the exact value, over results of at
// least the smallest normal float (below it, an absolute error of half that
// float; the negative tail underflows there). Measured on a Zen 3: 7.7 ULP
// (portable) and 7.0 (avx2), from the roundings of the erfcx polynomial's
// Horner steps (about 2.5 ULP) and of the products after it.
constexpr double kMaxUlp = 10.0;

long double exact_gelu(float x) {
  const long double v = x;
  return v * erfcl(-v / sqrtl(2.0L)) / 2.0L;
}

std::vector<float> inputs() {
  std::vector<float> x;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> wide(-14.0f, 14.0f);
  for (int i = 0; i < (1 << 20); ++i) x.push_back(wide(rng));
  for (float m = 1e-30f; m < 20.0f; m *= 1.0007f) {
    x.push_back(m);
    x.push_back(-m);
  }
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 19.999998f, -19.999998f, 20.0f, -20.0f, 20.000002f, -20.000002f, 1e30f,
                  -1e30f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()}) {
    x.push_back(v);
  }
  return x;
}

TEST(GeluFloatArray, IsWithinItsBoundOnEveryPathThisProcessorRuns) {
  const std::vector<float> x = inputs();
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (!can_run(isa, here)) continue;
    SCOPED_TRACE(std::string(to_string(isa)));
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    // An odd count, so that every path's tail runs too.
    std::vector<float> y(x.size() + 1, std::nanf(""));
    gelu_float_array(x.data(), y.data(), static_cast<std::int64_t>(x.size()) - 1);
    double worst = 0;
    float worst_x = 0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
      const long double expected = exact_gelu(x[i]);
      double error = 0;
      if (fabsl(expected) < std::numeric_limits<float>::min()) {
        const long double absolute = fabsl(static_cast<long double>(y[i]) - expected);
        ASSERT_LE(absolute, std::numeric_limits<float>::min() / 2) << "x = " << x[i] << ": got " << y[i];
        continue;
      }
      error = ulp::ulp_error(core::DataType::FLOAT, expected, y[i]);
      if (error > worst) worst = error, worst_x = x[i];
    }
    std::printf("[gelu] %s: largest error %.3f ULP (x = %.9g)\n", std::string(to_string(isa)).c_str(), worst, worst_x);
    EXPECT_LE(worst, kMaxUlp) << "at x = " << worst_x;
    EXPECT_TRUE(std::isnan(y[x.size() - 1])) << "wrote past the count";
    // The limits: x beyond 20, -0 below -20, NaN stays NaN.
    float special[4] = {30.0f, -30.0f, std::nanf(""), -std::numeric_limits<float>::infinity()};
    float out[4];
    gelu_float_array(special, out, 4);
    EXPECT_EQ(out[0], 30.0f);
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_TRUE(std::signbit(out[1]));
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_TRUE(std::isnan(out[3])) << "x / 2 * (1 + erf(x / sqrt 2)) at -inf";
  }
}

}  // namespace
}  // namespace tunekit::cpu
