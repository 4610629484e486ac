// The sign rule of pow for the AVX-512 Pow paths (pow_lanes.inl, included
// by unary_avx512.cpp), which compute pow(|x|, y): a negative
// finite base gives NaN unless y is an integer, and the negated magnitude
// when y is odd. Included only by files compiled for AVX-512 (F, DQ);
// static, so no other file's copy can stand in for it.
#pragma once

#include <immintrin.h>

namespace tunekit::cpu::detail {

static inline __m512d pow_apply_base_sign(__m512d x, __m512d y, __m512d magnitude) {
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __mmask8 negative = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
  if (negative == 0) return magnitude;  // the common case costs one compare
  const __m512d half = _mm512_mul_pd(y, _mm512_set1_pd(0.5));
  const __mmask8 integral = _mm512_cmp_pd_mask(_mm512_roundscale_pd(y, kNearest), y, _CMP_EQ_OQ);
  // Odd: an integer whose half is not one (every |y| >= 2^53 is even).
  const __mmask8 odd = integral & _mm512_cmp_pd_mask(_mm512_roundscale_pd(half, kNearest), half, _CMP_NEQ_OQ);
  const __m512d r = _mm512_mask_blend_pd(negative & static_cast<__mmask8>(~integral), magnitude,
                                         _mm512_set1_pd(__builtin_nan("")));
  return _mm512_mask_xor_pd(r, negative & odd, r, _mm512_set1_pd(-0.0));
}

}  // namespace tunekit::cpu::detail
