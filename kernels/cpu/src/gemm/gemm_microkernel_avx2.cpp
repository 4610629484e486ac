// AVX2 micro-kernels: 6 x 16 (float) and 6 x 8 (double) tiles, two ymm
// columns per row, 12 accumulators held in registers; per k step two vector
// loads of B, six broadcasts of A and 12 FMAs (15 of the 16 ymm registers). The
// B micro-panel of tile_k rows (tile_k * 64 bytes) is what stays in L1.
// Compiled with -mavx2 -mfma -mf16c; everything but the entry point is in an
// anonymous namespace (tunekit/cpu/isa.hpp).
#include <immintrin.h>

#include "gemm_microkernel.hpp"

namespace tunekit::cpu::gemm_detail {
namespace {

constexpr int kMr = 6;

struct F32 {
  using T = float;
  using V = __m256;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
};

struct F64 {
  using T = double;
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
};

template <typename S>
void kernel(std::int64_t k, const typename S::T* a, const typename S::T* b, std::int64_t rs_b, typename S::T* c,
            std::int64_t ldc, typename S::T alpha, typename S::T beta, std::int64_t rows) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V c0[kMr], c1[kMr];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    c0[i] = S::zero();
    c1[i] = S::zero();
  }
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < k; ++p) {
    // B rows further down the panel: a streamed B (rs_b = ldb) is not contiguous.
    _mm_prefetch(reinterpret_cast<const char*>(b + 32 * rs_b), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 32 * rs_b + L), _MM_HINT_T0);
    const V b0 = S::load(b);
    const V b1 = S::load(b + L);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const V ai = S::set1(a[i]);
      c0[i] = S::fma(ai, b0, c0[i]);
      c1[i] = S::fma(ai, b1, c1[i]);
    }
    a += kMr;
    b += rs_b;
  }
  const V va = S::set1(alpha);
  if (beta == typename S::T(0)) {
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      if (i >= rows) break;
      S::store(c + i * ldc, S::mul(va, c0[i]));
      S::store(c + i * ldc + L, S::mul(va, c1[i]));
    }
  } else {
    const V vb = S::set1(beta);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      if (i >= rows) break;
      typename S::T* row = c + i * ldc;
      S::store(row, S::fma(va, c0[i], S::mul(vb, S::load(row))));
      S::store(row + L, S::fma(va, c1[i], S::mul(vb, S::load(row + L))));
    }
  }
}

void kernel_f32(std::int64_t k, const float* a, const float* b, std::int64_t rs_b, float* c, std::int64_t ldc,
                float alpha, float beta, std::int64_t rows) {
  kernel<F32>(k, a, b, rs_b, c, ldc, alpha, beta, rows);
}
void kernel_f64(std::int64_t k, const double* a, const double* b, std::int64_t rs_b, double* c, std::int64_t ldc,
                double alpha, double beta, std::int64_t rows) {
  kernel<F64>(k, a, b, rs_b, c, ldc, alpha, beta, rows);
}

}  // namespace

MicroKernels avx2_microkernels() noexcept { return {kMr, 2 * F32::kLanes, kernel_f32, kMr, 2 * F64::kLanes, kernel_f64}; }

}  // namespace tunekit::cpu::gemm_detail
