// The direct convolution's tiles for the avx512 path: 12 pixels x 32 output
// channels, 24 accumulators in zmm registers plus two filter vectors and a
// broadcast (27 of the 32).
#include "direct_conv_kernels.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
// GCC 12 reports the undefined pass-through vector of _mm512_max_ps's
// unmasked form as maybe uninitialised once inlined; it is never read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace tunekit::engines::detail {
namespace {

struct S {
  using T = float;
  using V = __m512;
  static constexpr int kLanes = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const T* p) { return _mm512_loadu_ps(p); }
  static V set1(T x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  // Lanes 0-7 of a and b alternating (lo), lanes 8-15 (hi); the even and
  // the odd lanes of a then b.
  static V interleave_lo(V a, V b) {
    return _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), b);
  }
  static V interleave_hi(V a, V b) {
    return _mm512_permutex2var_ps(a, _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31),
                                  b);
  }
  static V even(V a, V b) {
    return _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
  }
  static V odd(V a, V b) {
    return _mm512_permutex2var_ps(a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
  }
};
constexpr int kPixels = 12;
constexpr int kGroupedAccumulators = 24;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_avx512() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row, S::kLanes, {grouped_row<1>, grouped_row<2>, grouped_row<4>}, channels_to_lanes};
  return kernels;
}

}  // namespace tunekit::engines::detail
#endif
