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
  // Lanes 0-3 of a and b alternating (lo), lanes 4-7 (hi): unpack works
  // within each 128-bit half, so the halves are put in order after it.
  static V interleave_lo(V a, V b) {
    return _mm256_permute2f128_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b), 0x20);
  }
  static V interleave_hi(V a, V b) {
    return _mm256_permute2f128_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b), 0x31);
  }
  // The even (odd) lanes of a then b: per half a0 a2 b0 b2, then the
  // 64-bit pairs reordered across the halves.
  static V even(V a, V b) {
    const __m256 halves = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(halves), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  static V odd(V a, V b) {
    const __m256 halves = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(halves), _MM_SHUFFLE(3, 1, 2, 0)));
  }
};
constexpr int kPixels = 6;
constexpr int kGroupedAccumulators = 12;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_avx2() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row, S::kLanes, {grouped_row<1>, grouped_row<2>, grouped_row<4>}, channels_to_lanes};
  return kernels;
}

}  // namespace tunekit::engines::detail
#endif
