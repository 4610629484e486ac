// Correctness of tunekit_cpu's Gemm: every path, transpose, shape edge,
// alpha/beta rule, instruction set and thread count against the
// double-precision reference, with a tolerance scaled by K and the type's
// epsilon, on random inputs and a poisoned C.
#include "tunekit/cpu/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"

namespace tunekit::cpu {
namespace {

constexpr double kSentinel = 12345.0;  // written into the padding of C: must survive

struct Shape3 {
  std::int64_t m, n, k;
};

struct Options {
  Transpose ta = Transpose::NO;
  Transpose tb = Transpose::NO;
  double alpha = 1.5;
  double beta = 0.75;
  std::int64_t pad = 3;  // ld = row length + pad
  GemmPath path = GemmPath::AUTO;
  int threads = 1;
  GemmPackedTuning config{};
};

template <typename T>
std::vector<T> random_matrix(std::int64_t elements, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<T> out(static_cast<std::size_t>(elements));
  for (T& x : out) x = static_cast<T>(normal(engine));
  return out;
}

template <typename T>
struct Operands {
  std::int64_t lda, ldb, ldc;
  std::vector<T> a, b, c;
};

template <typename T>
Operands<T> operands(const Shape3& s, const Options& o, std::uint64_t seed) {
  Operands<T> x;
  const std::int64_t a_rows = o.ta == Transpose::NO ? s.m : s.k;
  const std::int64_t b_rows = o.tb == Transpose::NO ? s.k : s.n;
  x.lda = (o.ta == Transpose::NO ? s.k : s.m) + o.pad;
  x.ldb = (o.tb == Transpose::NO ? s.n : s.k) + o.pad;
  x.ldc = s.n + o.pad;
  x.a = random_matrix<T>(a_rows * x.lda, seed);
  x.b = random_matrix<T>(b_rows * x.ldb, seed + 1);
  x.c = random_matrix<T>(s.m * x.ldc, seed + 2);
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = s.n; j < x.ldc; ++j) x.c[static_cast<std::size_t>(i * x.ldc + j)] = T(kSentinel);
  }
  return x;
}

template <typename T>
std::vector<T> absolute(std::vector<T> v) {
  for (T& x : v) x = std::abs(x);
  return v;
}

// Runs the kernel and compares with the reference element by element:
// |got - expected| <= 2 (k + 2) eps (|alpha| |A||B| + |beta| |C|), the usual
// bound of a k-term dot product; padding of C must keep the sentinel.
template <typename T>
::testing::AssertionResult matches_reference(const Shape3& s, const Options& o, std::uint64_t seed = 7) {
  Operands<T> x = operands<T>(s, o, seed);
  std::vector<T> expected = x.c;
  std::vector<T> got = x.c;
  if (o.beta == 0.0) {
    for (std::int64_t i = 0; i < s.m; ++i) {
      for (std::int64_t j = 0; j < s.n; ++j) got[static_cast<std::size_t>(i * x.ldc + j)] = std::numeric_limits<T>::quiet_NaN();
    }
  }
  const auto alpha = static_cast<T>(o.alpha);
  const auto beta = static_cast<T>(o.beta);
  Error ref = gemm_reference(o.ta, o.tb, s.m, s.n, s.k, alpha, x.a.data(), x.lda, x.b.data(), x.ldb, beta,
                             expected.data(), x.ldc);
  if (ref.is_bad()) return ::testing::AssertionFailure() << "reference: " << ref.message();
  std::vector<T> bound = absolute(x.c);
  const std::vector<T> abs_a = absolute(x.a), abs_b = absolute(x.b);
  (void)gemm_reference(o.ta, o.tb, s.m, s.n, s.k, std::abs(alpha), abs_a.data(), x.lda, abs_b.data(), x.ldb,
                       std::abs(beta), bound.data(), x.ldc);
  Error e = GemmKernel(o.config).run(o.ta, o.tb, s.m, s.n, s.k, alpha, x.a.data(), x.lda, x.b.data(), x.ldb, beta,
                                      got.data(), x.ldc, o.path, o.threads);
  if (e.is_bad()) return ::testing::AssertionFailure() << "run: " << e.message();
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < x.ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * x.ldc + j);
      if (j >= s.n) {
        if (got[at] != T(kSentinel)) return ::testing::AssertionFailure() << "padding of C written at " << i << "," << j;
        continue;
      }
      const double tolerance = 2.0 * static_cast<double>(s.k + 2) * eps * static_cast<double>(bound[at]) + 1e-30;
      const double diff = std::abs(static_cast<double>(got[at]) - static_cast<double>(expected[at]));
      if (!(diff <= tolerance)) {
        return ::testing::AssertionFailure() << "C(" << i << "," << j << ") = " << got[at] << ", expected "
                                             << expected[at] << " (tolerance " << tolerance << ") for m=" << s.m
                                             << " n=" << s.n << " k=" << s.k;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

const Shape3 kShapes[] = {{1, 1, 1}, {7, 13, 5}, {97, 89, 101}, {257, 263, 255}};
const Transpose kTransposes[] = {Transpose::NO, Transpose::YES};

template <typename T>
void every_transpose_and_shape(const Options& base) {
  for (const Shape3& s : kShapes) {
    for (Transpose ta : kTransposes) {
      for (Transpose tb : kTransposes) {
        Options o = base;
        o.ta = ta;
        o.tb = tb;
        EXPECT_TRUE(matches_reference<T>(s, o)) << "ta=" << (ta == Transpose::YES) << " tb=" << (tb == Transpose::YES);
      }
    }
  }
}

TEST(GemmKernel, MatchesTheReferenceForEveryTransposeAndShape) {
  for (GemmPath path : {GemmPath::AUTO, GemmPath::PACKED, GemmPath::STREAMED_B, GemmPath::STREAMED_ROWS}) {
    Options o;
    o.path = path;
    every_transpose_and_shape<float>(o);
    every_transpose_and_shape<double>(o);
  }
}

TEST(GemmKernel, BetaZeroNeverReadsCEvenWhenItHoldsNaN) {
  for (GemmPath path : {GemmPath::PACKED, GemmPath::STREAMED_B, GemmPath::STREAMED_ROWS}) {
    Options o;
    o.beta = 0.0;
    o.path = path;
    every_transpose_and_shape<float>(o);
    every_transpose_and_shape<double>(o);
  }
}

TEST(GemmKernel, AlphaOneBetaOneAndNegativeScalesMatch) {
  for (auto [alpha, beta] : {std::pair{1.0, 1.0}, std::pair{-0.5, -2.0}, std::pair{1.0, 0.0}}) {
    Options o;
    o.alpha = alpha;
    o.beta = beta;
    EXPECT_TRUE(matches_reference<float>({97, 89, 101}, o));
    EXPECT_TRUE(matches_reference<double>({31, 67, 300}, o));
  }
}

TEST(GemmKernel, AlphaZeroScalesCWithoutReadingAOrB) {
  std::vector<float> nan_a(6, std::numeric_limits<float>::quiet_NaN()), nan_b(6, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> c = {1, 2, 3, 4};
  ASSERT_TRUE(GemmKernel().run(Transpose::NO, Transpose::NO, 2, 2, 3, 0.0f, nan_a.data(), 3, nan_b.data(), 2, 0.5f,
                               c.data(), 2).is_good());
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f}));
  std::vector<float> poisoned(4, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(GemmKernel().run(Transpose::NO, Transpose::NO, 2, 2, 3, 0.0f, nan_a.data(), 3, nan_b.data(), 2, 0.0f,
                               poisoned.data(), 2).is_good());
  EXPECT_EQ(poisoned, (std::vector<float>{0, 0, 0, 0}));
}

TEST(GemmKernel, EmptyDimensionsLeaveCOrScaleIt) {
  std::vector<double> c = {1, 2, 3, 4};
  const double a = 1, b = 1;
  // m == 0 and n == 0: nothing to write.
  ASSERT_TRUE(GemmKernel().run(Transpose::NO, Transpose::NO, 0, 2, 1, 1.0, &a, 1, &b, 2, 0.0, c.data(), 2).is_good());
  ASSERT_TRUE(GemmKernel().run(Transpose::NO, Transpose::NO, 2, 0, 1, 1.0, &a, 1, &b, 1, 0.0, c.data(), 2).is_good());
  EXPECT_EQ(c, (std::vector<double>{1, 2, 3, 4}));
  // k == 0: C = beta * C.
  ASSERT_TRUE(GemmKernel().run(Transpose::NO, Transpose::NO, 2, 2, 0, 1.0, &a, 1, &b, 2, 3.0, c.data(), 2).is_good());
  EXPECT_EQ(c, (std::vector<double>{3, 6, 9, 12}));
}

TEST(GemmKernel, RejectsNegativeDimensionsAndShortLeadingDimensions) {
  std::vector<float> buffer(64, 1.0f);
  const GemmKernel kernel;
  Error e = kernel.run(Transpose::NO, Transpose::NO, -1, 2, 2, 1.0f, buffer.data(), 2, buffer.data(), 2, 0.0f,
                       buffer.data(), 2);
  EXPECT_EQ(e.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(e.message(), "Gemm: negative dimension m=-1 n=2 k=2");
  e = kernel.run(Transpose::NO, Transpose::NO, 4, 4, 5, 1.0f, buffer.data(), 4, buffer.data(), 4, 0.0f,
                 buffer.data(), 4);
  EXPECT_EQ(e.message(), "Gemm: lda=4 is smaller than max(1, 5) (the stored row length)");
  e = kernel.run(Transpose::YES, Transpose::YES, 4, 3, 5, 1.0f, buffer.data(), 4, buffer.data(), 4, 0.0f,
                 buffer.data(), 2);
  EXPECT_EQ(e.message(), "Gemm: ldb=4 is smaller than max(1, 5) (the stored row length)");
  e = kernel.run(Transpose::YES, Transpose::YES, 4, 3, 5, 1.0f, buffer.data(), 4, buffer.data(), 5, 0.0f,
                 buffer.data(), 2);
  EXPECT_EQ(e.message(), "Gemm: ldc=2 is smaller than max(1, 3) (the stored row length)");
  EXPECT_EQ(gemm_reference(Transpose::NO, Transpose::NO, 4, 4, 5, 1.0f, buffer.data(), 4, buffer.data(), 4, 0.0f,
                           buffer.data(), 4).message(),
            "Gemm: lda=4 is smaller than max(1, 5) (the stored row length)");
}

TEST(GemmKernel, AutoTakesTheStreamedPathForSkinnyMOrASmallB) {
  GemmPackedTuning config;
  config.algorithm_row_stream_m_limit = 0;
  config.algorithm_skinny_m_limit = 8;
  config.algorithm_pack_b_minimum_elements = 1000;
  const GemmKernel kernel(config);
  EXPECT_EQ(kernel.choose_path(8, 4096, 4096, Transpose::NO), GemmPath::STREAMED_B);
  EXPECT_EQ(kernel.choose_path(8, 4096, 4096, Transpose::YES), GemmPath::STREAMED_B);
  EXPECT_EQ(kernel.choose_path(9, 4096, 4096, Transpose::NO), GemmPath::PACKED);
  EXPECT_EQ(kernel.choose_path(500, 33, 30, Transpose::NO), GemmPath::STREAMED_B);   // K*N = 990
  EXPECT_EQ(kernel.choose_path(500, 33, 30, Transpose::YES), GemmPath::PACKED);      // B would need packing
  EXPECT_EQ(kernel.choose_path(500, 10, 100, Transpose::NO), GemmPath::PACKED);      // K*N = 1000
}

TEST(GemmKernel, AutoTakesTheRowStreamedPathForTheFewestRowsOfAPlainB) {
  GemmPackedTuning config;
  config.algorithm_row_stream_m_limit = 3;
  config.algorithm_skinny_m_limit = 8;
  const GemmKernel kernel(config);
  EXPECT_EQ(kernel.choose_path(1, 4096, 4096, Transpose::NO), GemmPath::STREAMED_ROWS);
  EXPECT_EQ(kernel.choose_path(3, 4096, 4096, Transpose::NO), GemmPath::STREAMED_ROWS);
  EXPECT_EQ(kernel.choose_path(4, 4096, 4096, Transpose::NO), GemmPath::STREAMED_B);
  EXPECT_EQ(kernel.choose_path(1, 4096, 4096, Transpose::YES), GemmPath::STREAMED_B);  // rows of B are columns of op(B)
  EXPECT_EQ(GemmPackedTuning{}.algorithm_row_stream_m_limit, 8);
}

// Every row count (the compiled copies for 1 to 4 rows and the general one),
// columns that end in a two-vector chunk, a one-vector chunk and a scalar
// tail, a depth that leaves one to three rows of B after the groups of four,
// and a product wide enough for two column blocks of C; one and two threads
// give the same bits (each element of C gets the same operations wherever
// the columns are split).
TEST(GemmKernel, RowStreamedPathMatchesTheReferenceForEveryRowCountAndTail) {
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    auto forced = ScopedIsa::force(isa);
    if (!forced.ok()) continue;
    for (const Shape3& s : {Shape3{1, 45, 7}, Shape3{2, 61, 9}, Shape3{3, 16, 4}, Shape3{4, 37, 10},
                            Shape3{5, 77, 11}, Shape3{7, 130, 3}, Shape3{4, 6200, 9}, Shape3{1, 30000, 6}}) {
      Options o;
      o.path = GemmPath::STREAMED_ROWS;
      o.config.parallel_fmas_per_work_unit = 1;
      for (Transpose ta : kTransposes) {
        o.ta = ta;
        for (double beta : {0.0, 0.75}) {
          o.beta = beta;
          for (int threads : {1, 2}) {
            o.threads = threads;
            EXPECT_TRUE(matches_reference<float>(s, o)) << to_string(isa) << " threads=" << threads;
            EXPECT_TRUE(matches_reference<double>(s, o)) << to_string(isa) << " threads=" << threads;
          }
        }
      }
      o.ta = Transpose::NO;
      Operands<float> x = operands<float>(s, o, 5);
      std::vector<float> serial = x.c, parallel = x.c;
      const GemmKernel kernel(o.config);
      ASSERT_TRUE(kernel.run(Transpose::NO, Transpose::NO, s.m, s.n, s.k, 1.25f, x.a.data(), x.lda, x.b.data(), x.ldb,
                             0.5f, serial.data(), x.ldc, GemmPath::STREAMED_ROWS, 1).is_good());
      ASSERT_TRUE(kernel.run(Transpose::NO, Transpose::NO, s.m, s.n, s.k, 1.25f, x.a.data(), x.lda, x.b.data(), x.ldb,
                             0.5f, parallel.data(), x.ldc, GemmPath::STREAMED_ROWS, 2).is_good());
      EXPECT_EQ(serial, parallel) << to_string(isa) << " " << s.m << "x" << s.n << "x" << s.k;
    }
  }
}

// The fused epilogue: C = max(alpha AB + beta C + bias, 0) against the
// double reference plus the bias, on every path, instruction set and team,
// with tiles narrower than NR, several depth blocks (it must apply once, on
// the last), beta 0 over a NaN C and beta != 0, alpha 0 and K 0 (no product).
::testing::AssertionResult epilogue_matches(const Shape3& s, const Options& o, bool with_bias, bool relu) {
  Operands<float> x = operands<float>(s, o, 11);
  const std::vector<float> bias = random_matrix<float>(s.n, 99);
  std::vector<float> expected = x.c, got = x.c;
  if (o.beta == 0.0) {
    for (std::int64_t i = 0; i < s.m; ++i) {
      for (std::int64_t j = 0; j < s.n; ++j) got[static_cast<std::size_t>(i * x.ldc + j)] = std::nanf("");
    }
  }
  const auto alpha = static_cast<float>(o.alpha), beta = static_cast<float>(o.beta);
  (void)gemm_reference(o.ta, o.tb, s.m, s.n, s.k, alpha, x.a.data(), x.lda, x.b.data(), x.ldb, beta,
                       expected.data(), x.ldc);
  std::vector<float> bound = absolute(x.c);
  const std::vector<float> abs_a = absolute(x.a), abs_b = absolute(x.b);
  (void)gemm_reference(o.ta, o.tb, s.m, s.n, s.k, std::abs(alpha), abs_a.data(), x.lda, abs_b.data(), x.ldb,
                       std::abs(beta), bound.data(), x.ldc);
  const GemmKernel::Epilogue epilogue{with_bias ? bias.data() : nullptr, relu};
  Error e = GemmKernel(o.config).run(o.ta, o.tb, s.m, s.n, s.k, alpha, x.a.data(), x.lda, x.b.data(), x.ldb, beta,
                                      got.data(), x.ldc, epilogue, o.path, o.threads);
  if (e.is_bad()) return ::testing::AssertionFailure() << "run: " << e.message();
  const double eps = std::numeric_limits<float>::epsilon();
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < x.ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * x.ldc + j);
      if (j >= s.n) {
        if (got[at] != float(kSentinel)) return ::testing::AssertionFailure() << "padding of C written at " << i << "," << j;
        continue;
      }
      double want = static_cast<double>(expected[at]) + (with_bias ? bias[static_cast<std::size_t>(j)] : 0.0);
      if (relu) want = std::max(want, 0.0);
      const double b = static_cast<double>(bound[at]) + (with_bias ? std::abs(bias[static_cast<std::size_t>(j)]) : 0.0);
      const double tolerance = 2.0 * static_cast<double>(s.k + 3) * eps * b + 1e-30;
      if (!(std::abs(static_cast<double>(got[at]) - want) <= tolerance) || (relu && got[at] < 0.0f)) {
        return ::testing::AssertionFailure() << "C(" << i << "," << j << ") = " << got[at] << ", expected " << want
                                             << " for m=" << s.m << " n=" << s.n << " k=" << s.k;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(GemmKernel, TheFusedBiasAndReluMatchTheReferenceOnEveryPath) {
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    auto forced = ScopedIsa::force(isa);
    if (!forced.ok()) continue;
    for (GemmPath path : {GemmPath::PACKED, GemmPath::STREAMED_B, GemmPath::STREAMED_ROWS}) {
      for (const Shape3& s : {Shape3{3, 45, 300}, Shape3{37, 23, 29}, Shape3{97, 89, 101}, Shape3{7, 70, 0}}) {
        for (int threads : {1, 2}) {
          Options o;
          o.path = path;
          o.threads = threads;
          o.config.parallel_fmas_per_work_unit = 1000;
          o.config.algorithm_tile_k = 64;  // several depth blocks
          o.config.algorithm_tile_n = 32;  // several column blocks: the bias's offset of each
          o.config.algorithm_streamed_tile_k = 40;
          for (Transpose tb : kTransposes) {
            o.tb = tb;
            for (double beta : {0.0, 0.75}) {
              o.beta = beta;
              for (auto [bias, relu] : {std::pair{true, true}, std::pair{true, false}, std::pair{false, true}}) {
                EXPECT_TRUE(epilogue_matches(s, o, bias, relu))
                    << to_string(isa) << " path " << static_cast<int>(path) << " threads " << threads << " tb "
                    << (tb == Transpose::YES) << " beta " << beta << " bias " << bias << " relu " << relu;
              }
            }
          }
        }
      }
    }
    Options none;
    none.alpha = 0.0;  // C = beta C, then the epilogue
    EXPECT_TRUE(epilogue_matches({5, 33, 7}, none, true, true)) << to_string(isa);
  }
}

TEST(GemmKernel, ParallelFromMinimumTasksWorkUnits) {
  GemmPackedTuning config;
  config.parallel_fmas_per_work_unit = 1000;
  config.parallel_minimum_tasks = 4;
  const GemmKernel kernel(config);
  EXPECT_EQ(kernel.choose_threads(10, 10, 39, 8), 1);   // 3.9 units
  EXPECT_EQ(kernel.choose_threads(10, 10, 40, 8), 4);   // 4 units: one thread each
  EXPECT_EQ(kernel.choose_threads(10, 10, 400, 8), 8);  // capped by the team
  EXPECT_EQ(kernel.choose_threads(10, 10, 400, 1), 1);
}

TEST(GemmKernel, SerialAndParallelGiveTheSameBits) {
  Options o;
  o.config.parallel_fmas_per_work_unit = 1;
  o.config.algorithm_tile_m = 24;  // several row blocks and B split between threads
  o.config.algorithm_tile_n = 64;
  o.config.algorithm_tile_k = 40;
  for (GemmPath path : {GemmPath::PACKED, GemmPath::STREAMED_B, GemmPath::STREAMED_ROWS}) {
    for (const Shape3& s : {Shape3{97, 89, 101}, Shape3{5, 300, 64}, Shape3{257, 263, 255}}) {
      Operands<float> x = operands<float>(s, o, 3);
      std::vector<float> serial = x.c, parallel = x.c;
      const GemmKernel kernel(o.config);
      ASSERT_TRUE(kernel.run(o.ta, o.tb, s.m, s.n, s.k, 1.0f, x.a.data(), x.lda, x.b.data(), x.ldb, 0.5f,
                             serial.data(), x.ldc, path, 1).is_good());
      ASSERT_TRUE(kernel.run(o.ta, o.tb, s.m, s.n, s.k, 1.0f, x.a.data(), x.lda, x.b.data(), x.ldb, 0.5f,
                             parallel.data(), x.ldc, path, 2).is_good());
      EXPECT_EQ(serial, parallel) << s.m << "x" << s.n << "x" << s.k;
      Options p = o;
      p.path = path;
      p.threads = 2;
      EXPECT_TRUE(matches_reference<double>(s, p));
    }
  }
}

TEST(GemmKernel, TileConfigurationsAcrossTheSpecBoundsMatch) {
  struct Tiles {
    std::int64_t m, n, k;
  };
  // The spec's minimums, odd multiples, and its maximums.
  for (Tiles t : {Tiles{12, 32, 16}, Tiles{36, 96, 24}, Tiles{60, 160, 200}, Tiles{4096, 65536, 4096}}) {
    Options o;
    o.path = GemmPath::PACKED;
    o.config.algorithm_tile_m = t.m;
    o.config.algorithm_tile_n = t.n;
    o.config.algorithm_tile_k = t.k;
    for (Transpose ta : kTransposes) {
      o.ta = ta;
      o.tb = ta;
      EXPECT_TRUE(matches_reference<float>({97, 89, 101}, o)) << t.m << "/" << t.n << "/" << t.k;
      EXPECT_TRUE(matches_reference<double>({131, 70, 250}, o)) << t.m << "/" << t.n << "/" << t.k;
    }
  }
}

TEST(GemmKernel, StreamedDepthBlocksAcrossTheSpecBoundsMatch) {
  // 1 row per block, one that divides no K here, the default and the maximum;
  // beta != 1 checks that only the first block of each tile applies beta.
  for (std::int64_t depth : {1, 7, 32, 4096}) {
    Options o;
    o.path = GemmPath::STREAMED_B;
    o.config.algorithm_streamed_tile_k = depth;
    for (int threads : {1, 2}) {
      o.threads = threads;
      o.config.parallel_fmas_per_work_unit = 1000;
      for (Transpose tb : kTransposes) {
        o.tb = tb;
        EXPECT_TRUE(matches_reference<float>({13, 97, 101}, o)) << depth;
        EXPECT_TRUE(matches_reference<double>({5, 70, 250}, o)) << depth;
      }
    }
  }
}

TEST(GemmTuningSpec, DefaultsAndMultipleOfRulesComeFromTheSpec) {
  const GemmPackedTuning defaults;
  EXPECT_EQ(defaults.algorithm_tile_m, 144);
  EXPECT_EQ(defaults.algorithm_tile_n, 3072);
  EXPECT_EQ(defaults.algorithm_tile_k, 256);
  EXPECT_EQ(defaults.algorithm_skinny_m_limit, 16);
  EXPECT_EQ(defaults.algorithm_streamed_tile_k, 32);
  EXPECT_EQ(gemm_key(DataType::FLOAT),
            (tuning::KernelTuningKey{"tunekit_cpu", "Gemm", "packed", DataType::FLOAT, platform::DeviceKind::CPU, 1}));
  GemmPackedTuning config;
  const auto key = gemm_key(DataType::DOUBLE);
  // tile_m must be a multiple of 12 (every micro-kernel's MR divides it), tile_n of 32.
  EXPECT_TRUE(gemm_packed_binding().try_validate_and_apply(config, {key, {{"algorithm.tile_m", 18}}}).is_bad());
  EXPECT_TRUE(gemm_packed_binding().try_validate_and_apply(config, {key, {{"algorithm.tile_n", 48}}}).is_bad());
  EXPECT_TRUE(gemm_packed_binding().try_validate_and_apply(config, {key, {{"algorithm.tile_k", 8}}}).is_bad());
  ASSERT_TRUE(gemm_packed_binding().try_validate_and_apply(config, {key, {{"algorithm.tile_m", 24}}}).is_good());
  EXPECT_EQ(config.algorithm_tile_m, 24);
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    auto forced = ScopedIsa::force(isa);
    if (!forced.ok()) continue;
    for (DataType type : {DataType::FLOAT, DataType::DOUBLE}) {
      const GemmRegisterBlock block = gemm_register_block(type);
      EXPECT_EQ(12 % block.mr, 0) << to_string(isa);
      EXPECT_EQ(32 % block.nr, 0) << to_string(isa);
    }
  }
}

TEST(GemmRegistration, RegistersTheGemmCalibrationForEveryGemmType) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  std::vector<tuning::KernelTuningKey> gemm_keys;
  for (const auto& entry : functions.entries()) {
    if (entry.key.kernel == "Gemm") gemm_keys.push_back(entry.key);
  }
  EXPECT_EQ(gemm_keys, (std::vector<tuning::KernelTuningKey>{gemm_key(DataType::FLOAT), gemm_key(DataType::DOUBLE),
                                                             gemm_key(DataType::FLOAT16), gemm_key(DataType::BFLOAT16)}));
  EXPECT_NE(registry.snapshot()->schema(gemm_key(DataType::DOUBLE)), nullptr);
}

void every_path_under(CpuIsa isa) {
  auto forced = ScopedIsa::force(isa);
  if (!forced.ok()) GTEST_SKIP() << "this processor cannot run the " << to_string(isa) << " path";
  for (GemmPath path : {GemmPath::PACKED, GemmPath::STREAMED_B, GemmPath::STREAMED_ROWS}) {
    for (int threads : {1, 2}) {
      Options o;
      o.path = path;
      o.threads = threads;
      o.config.parallel_fmas_per_work_unit = 1000;
      every_transpose_and_shape<float>(o);
      every_transpose_and_shape<double>(o);
    }
  }
}

TEST(GemmKernel, PortablePathMatchesTheReference) { every_path_under(CpuIsa::PORTABLE); }
TEST(GemmKernel, Avx2PathMatchesTheReference) { every_path_under(CpuIsa::AVX2); }
TEST(GemmKernel, Avx512PathMatchesTheReference) { every_path_under(CpuIsa::AVX512); }

}  // namespace
}  // namespace tunekit::cpu
