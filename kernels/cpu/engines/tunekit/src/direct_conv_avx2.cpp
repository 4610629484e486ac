// The direct convolution's tiles for the avx2 path: 6 pixels x 16 output
// channels, 12 accumulators in ymm registers plus two filter vectors and a
// broadcast (15 of the 16).
#include "direct_conv_kernels.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
#include <immintrin.h>

namespace tunekit::engines::detail {
namespace {

struct S {
  using T = float;
  using V = __m256;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
};
constexpr int kPixels = 6;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_avx2() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row};
  return kernels;
}

}  // namespace tunekit::engines::detail
#endif
