// AVX-512 micro-kernels: 12 x 32 (float) and 12 x 16 (double) tiles, two zmm
// columns per row, 24 accumulators held in registers; per k step two vector
// loads of B, twelve broadcasts of A (folded into the FMAs) and 24 FMAs. The
// B micro-panel of tile_k rows (tile_k * 128 bytes) is what stays in L1.
// Compiled with -mavx512f/bw/vl/dq; everything but the entry point is in an
// anonymous namespace (tunekit/cpu/isa.hpp).
#include <algorithm>
#include <cmath>
#include <utility>

#include "../elementwise/x86_intrinsics.hpp"  // <immintrin.h>, without GCC 12's false warnings
#include "gemm_microkernel.hpp"

namespace tunekit::cpu::gemm_detail {
namespace {

constexpr int kMr = 12;

struct F32 {
  using T = float;
  using V = __m512;
  static constexpr int kLanes = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const T* p) { return _mm512_loadu_ps(p); }
  static V set1(T x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
};

struct F64 {
  using T = double;
  using V = __m512d;
  static constexpr int kLanes = 8;
  static V zero() { return _mm512_setzero_pd(); }
  static V load(const T* p) { return _mm512_loadu_pd(p); }
  static V set1(T x) { return _mm512_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V max(V a, V b) { return _mm512_max_pd(a, b); }
  static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
};

#include "gemm_microkernel.inl"
#include "gemm_pack_a.inl"
#include "gemm_row_stream.inl"

}  // namespace

MicroKernels avx512_microkernels() noexcept {
  return {kMr, 2 * F32::kLanes, kernel_f32, kMr, 2 * F64::kLanes, kernel_f64, pack_a_f32, pack_a_f64, pack_bt_f32, pack_bt_f64, row_stream_f32, row_stream_f64};
}

}  // namespace tunekit::cpu::gemm_detail
