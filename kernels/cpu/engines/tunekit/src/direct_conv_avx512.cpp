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
};
constexpr int kPixels = 12;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_avx512() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row};
  return kernels;
}

}  // namespace tunekit::engines::detail
#endif
