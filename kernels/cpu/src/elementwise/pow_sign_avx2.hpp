// The sign rule of pow for the AVX2 Pow paths (pow_lanes.inl, included by
// unary_avx2.cpp), which compute pow(|x|, y): a negative
// finite base gives NaN unless y is an integer, and the negated magnitude
// when y is odd. Included only by files compiled for AVX2; static, so no
// other file's copy can stand in for it.
#pragma once

#include <immintrin.h>

namespace tunekit::cpu::detail {

static inline __m256d pow_apply_base_sign(__m256d x, __m256d y, __m256d magnitude) {
  const __m256d negative = _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ);
  if (_mm256_movemask_pd(negative) == 0) return magnitude;  // the common case costs one compare
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m256d half = _mm256_mul_pd(y, _mm256_set1_pd(0.5));
  const __m256d integral = _mm256_cmp_pd(_mm256_round_pd(y, kNearest), y, _CMP_EQ_OQ);
  // Odd: an integer whose half is not one (every |y| >= 2^53 is even).
  const __m256d odd = _mm256_and_pd(integral, _mm256_cmp_pd(_mm256_round_pd(half, kNearest), half, _CMP_NEQ_OQ));
  const __m256d not_integral_negative = _mm256_andnot_pd(integral, negative);
  const __m256d r = _mm256_blendv_pd(magnitude, _mm256_set1_pd(__builtin_nan("")), not_integral_negative);
  return _mm256_xor_pd(r, _mm256_and_pd(_mm256_and_pd(negative, odd), _mm256_set1_pd(-0.0)));
}

}  // namespace tunekit::cpu::detail
