// The FLOAT16/BFLOAT16 Gemm (widening): every transpose and shape edge
// against the double-precision product of the widened values, rounded once;
// every 16-bit pattern through the conversions on every instruction-set
// path; serial and parallel conversions bit for bit; beta == 0 never reads C;
// the widening keys in the spec and the registry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tunekit/core/half_precision.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"

namespace tunekit::cpu {
namespace {

constexpr std::uint16_t kSentinel = 0x5A5A;

float widen(DataType type, std::uint16_t bits) {
  return type == DataType::FLOAT16 ? core::float16_to_float(bits) : core::bfloat16_to_float(bits);
}
std::uint16_t narrow(DataType type, float value) {
  return type == DataType::FLOAT16 ? core::float_to_float16(value) : core::float_to_bfloat16(value);
}
// The unit roundoff of the type (half its epsilon).
double unit_roundoff(DataType type) { return type == DataType::FLOAT16 ? 0x1p-11 : 0x1p-8; }

std::vector<std::uint16_t> random_halves(DataType type, std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> normal;
  std::vector<std::uint16_t> out(static_cast<std::size_t>(count));
  for (std::uint16_t& x : out) x = narrow(type, normal(engine));
  return out;
}

struct Case {
  DataType type;
  std::int64_t m, n, k;
  Transpose ta = Transpose::NO, tb = Transpose::NO;
  float alpha = 1.25f, beta = -0.5f;
  int threads = 1;
  GemmWideningTuning widening{};
  GemmPath path = GemmPath::AUTO;
};

// Runs the case on padded matrices; checks every element of C against the
// double-precision product of the widened operands, within the float Gemm's
// accumulation bound plus one rounding to the type, and that the padding of
// C keeps its sentinel. Returns C (for bit comparisons between runs).
std::vector<std::uint16_t> run_and_check(const Case& c, std::uint64_t seed = 11) {
  const std::int64_t pad = 5;
  const std::int64_t a_rows = c.ta == Transpose::NO ? c.m : c.k, a_cols = c.ta == Transpose::NO ? c.k : c.m;
  const std::int64_t b_rows = c.tb == Transpose::NO ? c.k : c.n, b_cols = c.tb == Transpose::NO ? c.n : c.k;
  const std::int64_t lda = a_cols + pad, ldb = b_cols + pad, ldc = c.n + pad;
  const std::vector<std::uint16_t> a = random_halves(c.type, a_rows * lda, seed);
  const std::vector<std::uint16_t> b = random_halves(c.type, b_rows * ldb, seed + 1);
  std::vector<std::uint16_t> got = random_halves(c.type, c.m * ldc, seed + 2);
  for (std::int64_t i = 0; i < c.m; ++i) {
    for (std::int64_t j = c.n; j < ldc; ++j) got[static_cast<std::size_t>(i * ldc + j)] = kSentinel;
  }
  const std::vector<std::uint16_t> c_in = got;
  const auto at_a = [&](std::int64_t i, std::int64_t p) {
    return static_cast<double>(widen(c.type, a[static_cast<std::size_t>(c.ta == Transpose::NO ? i * lda + p : p * lda + i)]));
  };
  const auto at_b = [&](std::int64_t p, std::int64_t j) {
    return static_cast<double>(widen(c.type, b[static_cast<std::size_t>(c.tb == Transpose::NO ? p * ldb + j : j * ldb + p)]));
  };
  const Error e = GemmKernel(GemmPackedTuning{}, c.widening)
                      .run(c.type, c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta,
                           got.data(), ldc, c.path, c.threads);
  EXPECT_TRUE(e.is_good()) << e.message();
  const double eps = std::numeric_limits<float>::epsilon();
  for (std::int64_t i = 0; i < c.m; ++i) {
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      if (j >= c.n) {
        EXPECT_EQ(got[at], kSentinel) << "padding of C written at " << i << "," << j;
        continue;
      }
      double sum = 0, magnitude = 0;
      for (std::int64_t p = 0; p < c.k; ++p) {
        sum += at_a(i, p) * at_b(p, j);
        magnitude += std::abs(at_a(i, p) * at_b(p, j));
      }
      const double old_c = c.beta == 0.0f ? 0.0 : static_cast<double>(widen(c.type, c_in[at]));
      const double expected = c.alpha * sum + c.beta * old_c;
      const double bound = std::abs(c.alpha) * magnitude + std::abs(c.beta) * std::abs(old_c);
      // The float product's error, then one rounding to the type (and its
      // smallest subnormal step, for results near zero).
      const double tolerance = 2.0 * static_cast<double>(c.k + 2) * eps * bound +
                               unit_roundoff(c.type) * (std::abs(expected) + 2.0 * static_cast<double>(c.k + 2) * eps * bound) +
                               (c.type == DataType::FLOAT16 ? 0x1p-24 : 0x1p-133);
      const double value = static_cast<double>(widen(c.type, got[at]));
      EXPECT_LE(std::abs(value - expected), tolerance)
          << "C(" << i << "," << j << ") = " << value << ", expected " << expected << " for "
          << core::to_string(c.type) << " m=" << c.m << " n=" << c.n << " k=" << c.k;
    }
  }
  return got;
}

const DataType kHalfTypes[] = {DataType::FLOAT16, DataType::BFLOAT16};

TEST(GemmWidening, MatchesTheWidenedProductForEveryTransposeAndShape) {
  struct Dims {
    std::int64_t m, n, k;
  };
  for (DataType type : kHalfTypes) {
    for (Dims d : {Dims{1, 1, 1}, Dims{7, 13, 5}, Dims{97, 89, 101}, Dims{3, 263, 257}}) {
      for (Transpose ta : {Transpose::NO, Transpose::YES}) {
        for (Transpose tb : {Transpose::NO, Transpose::YES}) {
          Case c{type, d.m, d.n, d.k};
          c.ta = ta;
          c.tb = tb;
          run_and_check(c);
        }
      }
    }
  }
}

TEST(GemmWidening, EveryInstructionSetPathAndParallelConversionsGiveTheSameBits) {
  for (DataType type : kHalfTypes) {
    Case serial{type, 61, 67, 71};
    serial.widening.conversion_parallel_minimum_elements = 1 << 30;
    for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
      auto forced = ScopedIsa::force(isa);
      if (!forced.ok()) continue;  // this processor cannot run that path
      // The FLOAT product differs between instruction sets in its
      // summation; within one path, the conversions' team must not matter.
      run_and_check(serial);
      Case parallel = serial;
      parallel.threads = 2;
      parallel.widening.conversion_parallel_minimum_elements = 1;
      parallel.path = GemmPath::PACKED;
      Case serial_packed = serial;
      serial_packed.path = GemmPath::PACKED;
      EXPECT_EQ(run_and_check(parallel), run_and_check(serial_packed)) << to_string(isa);
    }
  }
}

// C = A * s: A holds every 16-bit pattern and s is 1, the next value above 1
// or 3, so the product is exact in float but mostly not representable in the
// type: narrowing it must round exactly as core::float_to_float16/bfloat16
// does (to nearest even, overflow to infinity), infinities and NaN included,
// on every path and with parallel conversions. (A zero comes back as +0: the
// float product accumulates from +0, as any Gemm does.)
TEST(GemmWidening, EveryBitPatternRoundsAsTheCoreConversions) {
  for (DataType type : kHalfTypes) {
    const float next = 1.0f + static_cast<float>(2 * unit_roundoff(type));
    for (float scale : {1.0f, next, 3.0f}) {
      std::vector<std::uint16_t> a(65536);
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint16_t>(i);
      const std::uint16_t b = narrow(type, scale);
      ASSERT_EQ(widen(type, b), scale);
      for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
        auto forced = ScopedIsa::force(isa);
        if (!forced.ok()) continue;
        for (int threads : {1, 2}) {
          GemmWideningTuning widening;
          widening.conversion_parallel_minimum_elements = threads == 1 ? (1 << 30) : 1;
          std::vector<std::uint16_t> c(a.size(), kSentinel);
          ASSERT_TRUE(GemmKernel(GemmPackedTuning{}, widening)
                          .run(type, Transpose::NO, Transpose::NO, 65536, 1, 1, 1.0f, a.data(), 1, &b, 1, 0.0f,
                               c.data(), 1, GemmPath::AUTO, threads)
                          .is_good());
          int wrong = 0;
          for (std::size_t i = 0; i < a.size() && wrong < 5; ++i) {
            const float exact = widen(type, a[i]) * scale;
            const std::uint16_t expected = narrow(type, exact);
            const bool both_nan = std::isnan(exact) && std::isnan(widen(type, c[i]));
            const bool both_zero = exact == 0.0f && widen(type, c[i]) == 0.0f;
            if (!both_nan && !both_zero && c[i] != expected) {
              ++wrong;
              ADD_FAILURE() << core::to_string(type) << " " << to_string(isa) << " threads " << threads << ": 0x"
                            << std::hex << a[i] << " * " << scale << " gave 0x" << c[i] << ", expected 0x" << expected;
            }
          }
        }
      }
    }
  }
}

TEST(GemmWidening, BetaZeroNeverReadsCAndAlphaZeroNeverReadsAOrB) {
  for (DataType type : kHalfTypes) {
    const std::uint16_t nan = narrow(type, std::numeric_limits<float>::quiet_NaN());
    const std::vector<std::uint16_t> a = random_halves(type, 9 * 11, 3), b = random_halves(type, 11 * 7, 4);
    std::vector<std::uint16_t> c(9 * 7, nan);
    ASSERT_TRUE(GemmKernel().run(type, Transpose::NO, Transpose::NO, 9, 7, 11, 1.0f, a.data(), 11, b.data(), 7, 0.0f,
                                 c.data(), 7).is_good());
    for (std::uint16_t x : c) EXPECT_FALSE(std::isnan(widen(type, x)));
    // alpha == 0: C = beta * C, rounded once; A and B (all NaN) are not read.
    const std::vector<std::uint16_t> poison(9 * 11, nan);
    std::vector<std::uint16_t> scaled = random_halves(type, 9 * 7, 5);
    const std::vector<std::uint16_t> before = scaled;
    ASSERT_TRUE(GemmKernel().run(type, Transpose::NO, Transpose::NO, 9, 7, 11, 0.0f, poison.data(), 11, poison.data(),
                                 7, 2.0f, scaled.data(), 7).is_good());
    for (std::size_t i = 0; i < scaled.size(); ++i) EXPECT_EQ(scaled[i], narrow(type, 2.0f * widen(type, before[i])));
  }
}

// The epilogue hook sees the float product (dense, ldc = n) before C is
// rounded: C is the hook's result rounded once, not the rounded product.
TEST(GemmWidening, TheEpilogueBeforeNarrowingSeesTheFloatProductAndIsRoundedOnce) {
  for (DataType type : kHalfTypes) {
    const std::int64_t m = 9, n = 7, k = 11, ldc = n + 3;
    const std::vector<std::uint16_t> a = random_halves(type, m * k, 6), b = random_halves(type, k * n, 7);
    std::vector<std::uint16_t> plain(static_cast<std::size_t>(m * ldc), kSentinel);
    std::vector<std::uint16_t> hooked = plain;
    ASSERT_TRUE(GemmKernel().run(type, Transpose::NO, Transpose::NO, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                                 plain.data(), ldc).is_good());
    std::vector<float> seen;
    std::int64_t seen_ldc = 0;
    int seen_threads = 0;
    const GemmKernel::WideProductEpilogue hook = [&](float* c, std::int64_t ld, int threads) {
      seen.assign(c, c + m * ld);
      seen_ldc = ld;
      seen_threads = threads;
      for (std::int64_t i = 0; i < m * ld; ++i) c[i] = c[i] * 3.0f - 0.3f;
    };
    // The hook gets the product's team: two threads where the product has
    // work for two (one multiply-add per work unit), one for the same
    // product at the portable threshold.
    GemmPackedTuning parallel;
    parallel.parallel_fmas_per_work_unit = 1;
    ASSERT_TRUE(GemmKernel(parallel, GemmWideningTuning{}, 2)
                    .run(type, Transpose::NO, Transpose::NO, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                         hooked.data(), ldc, hook)
                    .is_good());
    EXPECT_EQ(seen_ldc, n);
    EXPECT_EQ(seen_threads, 2);
    std::vector<std::uint16_t> serial = plain;
    int serial_threads = 0;
    ASSERT_TRUE(GemmKernel(GemmPackedTuning{}, GemmWideningTuning{}, 2)
                    .run(type, Transpose::NO, Transpose::NO, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                         serial.data(), ldc, [&](float*, std::int64_t, int threads) { serial_threads = threads; })
                    .is_good());
    EXPECT_EQ(serial_threads, 1);
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < ldc; ++j) {
        const std::size_t at = static_cast<std::size_t>(i * ldc + j);
        if (j >= n) {
          EXPECT_EQ(hooked[at], kSentinel);
          continue;
        }
        const float product = seen[static_cast<std::size_t>(i * n + j)];
        EXPECT_EQ(plain[at], narrow(type, product));
        EXPECT_EQ(hooked[at], narrow(type, product * 3.0f - 0.3f)) << i << ", " << j;
      }
    }
  }
}

TEST(GemmWidening, RejectsOtherTypesAndShortLeadingDimensions) {
  std::vector<std::uint16_t> x(64, 0x3C00);
  const Error wrong_type = GemmKernel().run(DataType::FLOAT, Transpose::NO, Transpose::NO, 2, 2, 2, 1.0f, x.data(), 2,
                                            x.data(), 2, 0.0f, x.data(), 2);
  EXPECT_EQ(wrong_type.code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(wrong_type.message().find("float16 or bfloat16, not float"), std::string::npos) << wrong_type.message();
  const Error short_ld = GemmKernel().run(DataType::FLOAT16, Transpose::NO, Transpose::NO, 2, 4, 3, 1.0f, x.data(), 2,
                                          x.data(), 4, 0.0f, x.data(), 4);
  EXPECT_EQ(short_ld.code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(short_ld.message().find("lda=2"), std::string::npos) << short_ld.message();
}

TEST(GemmWidening, ConversionsRunInParallelFromTheThreshold) {
  GemmWideningTuning widening;
  widening.conversion_parallel_minimum_elements = 1000;
  const GemmKernel kernel(GemmPackedTuning{}, widening);
  EXPECT_EQ(kernel.conversion_threads(999, 4), 1);
  EXPECT_EQ(kernel.conversion_threads(1000, 4), 4);
  EXPECT_EQ(kernel.conversion_threads(1 << 20, 1), 1);
  EXPECT_EQ(GemmWideningTuning{}.conversion_parallel_minimum_elements, 262144);
}

TEST(GemmWidening, KeysAndCalibrationsAreRegisteredForBothHalfTypes) {
  EXPECT_EQ(gemm_key(DataType::FLOAT16), (tuning::KernelTuningKey{"tunekit_cpu", "Gemm", "widening", DataType::FLOAT16,
                                                                   platform::DeviceKind::CPU, 1}));
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  for (DataType type : kHalfTypes) {
    bool found = false;
    for (const auto& entry : functions.entries()) found = found || entry.key == gemm_key(type);
    EXPECT_TRUE(found) << core::to_string(type);
    EXPECT_NE(registry.snapshot()->schema(gemm_key(type)), nullptr);
    GemmWideningTuning config;
    EXPECT_TRUE(gemm_widening_binding()
                    .try_validate_and_apply(config, {gemm_key(type), {{"conversion.parallel_minimum_elements", 0}}})
                    .is_bad());
  }
}

}  // namespace
}  // namespace tunekit::cpu
