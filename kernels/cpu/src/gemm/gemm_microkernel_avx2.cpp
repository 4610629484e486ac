// AVX2 micro-kernels: 6 x 16 (float) and 6 x 8 (double) tiles, two ymm
// columns per row, 12 accumulators held in registers; per k step two vector
// loads of B, six broadcasts of A and 12 FMAs (15 of the 16 ymm registers). The
// B micro-panel of tile_k rows (tile_k * 64 bytes) is what stays in L1.
// Compiled with -mavx2 -mfma -mf16c; everything but the entry point is in an
// anonymous namespace (tunekit/cpu/isa.hpp).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <utility>

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
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
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
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
};

#include "gemm_microkernel.inl"
#include "gemm_pack_a.inl"
#include "gemm_row_stream.inl"

}  // namespace

MicroKernels avx2_microkernels() noexcept {
  return {kMr, 2 * F32::kLanes, kernel_f32, kMr, 2 * F64::kLanes, kernel_f64, pack_a_f32, pack_a_f64, pack_bt_f32, pack_bt_f64, row_stream_f32, row_stream_f64};
}

}  // namespace tunekit::cpu::gemm_detail
