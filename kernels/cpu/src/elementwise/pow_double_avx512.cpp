// Double Pow on AVX-512: pow(x, y) = exp(y log x) with log x carried as a
// double-double, so that z = y log x has an absolute error far below 2^-53
// up to the overflow threshold, where a plain double log would leave an
// error of |z| ULP (hundreds near 1e300). The bound asserted by the tests
// (0.52 ULP) is measured, not derived.
//
// log x: x = 2^e m with m in [0.705, 1.41); m falls in one of 128
// bins of its bit pattern, each with c, a double near the bin's middle, and
// log(c) as a double-double; r = m / c - 1 is formed exactly as a
// double-double from m * (1/c) and its FMA residual, and log(1 + r) is a
// degree-9 Taylor series (|r| < 2^-7.5, truncation below 2^-70) whose
// quadratic term is exact. The bin holding 1 (in its middle) has c = 1
// exactly, so that log x near 1 keeps its relative accuracy (no
// cancellation against log c): |y| may be as large as 708 / |log x|, and
// it multiplies every absolute error of log x.
// exp z: z = k ln2/128 + s with |s| <= ln2/256, 2^(k/128) from a 128-entry
// table (to 2^-64, from exp2l) times a degree-6 series of exp(s) - 1,
// scaled by 2^(k/128 rounded down).
//
// A negative base goes through pow(|x|, y) and the sign rule
// (pow_sign_avx512.hpp). Lanes outside the vector path's domain (x zero or
// not finite, y not finite, |y log |x|| beyond 708 where results overflow
// or become subnormal) take the C library's pow. Measured maximum error: README "Unary kernels".
#include "unary_paths.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
#include "x86_intrinsics.hpp"
#include <math.h>

#include <cstdint>
#include <cstring>

#include "pow_tables.hpp"
#include "pow_sign_avx512.hpp"

namespace tunekit::cpu::detail {
namespace {

// a + b = s + err exactly (Knuth's two-sum: no order of magnitudes needed).
inline void two_sum(__m512d a, __m512d b, __m512d& s, __m512d& err) {
  s = _mm512_add_pd(a, b);
  const __m512d bb = _mm512_sub_pd(s, a);
  err = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(s, bb)), _mm512_sub_pd(b, bb));
}

// log x = hi + lo for positive finite x (subnormals included).
inline void log_double_double(const PowTables& t, __m512d x, __m512d& hi, __m512d& lo) {
  const __mmask8 subnormal = _mm512_cmp_pd_mask(x, _mm512_set1_pd(0x1p-1022), _CMP_LT_OQ);
  x = _mm512_mask_mul_pd(x, subnormal, x, _mm512_set1_pd(0x1p52));
  const __m512i bits = _mm512_castpd_si512(x);
  const __m512i offset = _mm512_sub_epi64(bits, _mm512_set1_epi64(static_cast<long long>(kRangeStartBits)));
  const __m512i exponent_bits = _mm512_srai_epi64(offset, 52);
  const __m512i bin = _mm512_and_si512(_mm512_srli_epi64(offset, 52 - kBinBits), _mm512_set1_epi64(kBins - 1));
  const __m512d m = _mm512_castsi512_pd(_mm512_sub_epi64(bits, _mm512_slli_epi64(exponent_bits, 52)));
  __m512d e = _mm512_cvtepi64_pd(exponent_bits);
  e = _mm512_mask_sub_pd(e, subnormal, e, _mm512_set1_pd(52.0));

  const __m512d inverse_c = _mm512_i64gather_pd(bin, t.inverse_c, 8);
  const __m512d log_c_hi = _mm512_i64gather_pd(bin, t.log_c_hi, 8);
  const __m512d log_c_lo = _mm512_i64gather_pd(bin, t.log_c_lo, 8);
  // r = m / c - 1 = (p - 1) + p_lo exactly, then rounded to r_hi + r_lo.
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d p = _mm512_mul_pd(m, inverse_c);
  const __m512d p_lo = _mm512_fmsub_pd(m, inverse_c, p);
  __m512d r, r_lo;
  two_sum(_mm512_sub_pd(p, one), p_lo, r, r_lo);

  // log(1 + r) = r - r^2/2 + r^3 (1/3 - r/4 + ... + r^6/9) (|r| < 2^-7.5):
  // r^2/2 exactly (an FMA gives r^2's rounding error), the rest, below
  // 2^-22, in plain double.
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d r2_lo = _mm512_fmsub_pd(r, r, r2);
  __m512d series = _mm512_set1_pd(1.0 / 9);
  for (int k = 8; k >= 3; --k) {
    series = _mm512_fmadd_pd(series, r, _mm512_set1_pd((k % 2 == 0 ? -1.0 : 1.0) / k));
  }
  const __m512d cubic = _mm512_mul_pd(_mm512_mul_pd(r2, r), series);

  // e ln2 + log c + r - r^2/2 + (the small terms), its leading terms summed
  // exactly: e * ln2_short_hi is exact, the sums go through two_sum.
  const __m512d half = _mm512_set1_pd(0.5);
  __m512d s1, err1, s2, err2, s3, err3;
  two_sum(_mm512_mul_pd(e, _mm512_set1_pd(t.ln2_short_hi)), log_c_hi, s1, err1);
  two_sum(s1, r, s2, err2);
  two_sum(s2, _mm512_mul_pd(_mm512_set1_pd(-0.5), r2), s3, err3);
  const __m512d small = _mm512_add_pd(
      _mm512_add_pd(_mm512_fmadd_pd(e, _mm512_set1_pd(t.ln2_short_lo), log_c_lo),
                    _mm512_add_pd(_mm512_add_pd(err1, err2), err3)),
      _mm512_add_pd(_mm512_fnmadd_pd(half, r2_lo, _mm512_fnmadd_pd(r, r_lo, r_lo)), cubic));
  hi = _mm512_add_pd(s3, small);
  lo = _mm512_sub_pd(small, _mm512_sub_pd(hi, s3));
}

// exp(hi + lo) for |hi| <= 708 (normal results).
inline __m512d exp_double_double(const PowTables& t, __m512d hi, __m512d lo) {
  const __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(hi, _mm512_set1_pd(kBins / kLn2Hi)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // s = hi - k ln2/128 + lo: the first difference is exact (k * hi part is
  // exact and close to hi).
  __m512d s = _mm512_fnmadd_pd(k, _mm512_set1_pd(t.ln2_per_bin_hi), hi);
  s = _mm512_add_pd(_mm512_fnmadd_pd(k, _mm512_set1_pd(t.ln2_per_bin_lo), lo), s);
  // exp(s) - 1 = s + s^2/2 + ... + s^6/720 (|s| <= 2^-8.5, truncation below 2^-70).
  // A plain array, not an initializer_list: no standard library template is
  // instantiated in an AVX-512 file (tunekit/cpu/isa.hpp).
  constexpr double kExpm1Coefficients[] = {1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0};
  __m512d series = _mm512_set1_pd(1.0 / 720);
  for (double f : kExpm1Coefficients) series = _mm512_fmadd_pd(series, s, _mm512_set1_pd(f));
  const __m512d expm1 = _mm512_mul_pd(series, s);
  const __m512i ki = _mm512_cvtpd_epi64(k);
  const __m512i j = _mm512_and_si512(ki, _mm512_set1_epi64(kBins - 1));
  const __m512i scale = _mm512_srai_epi64(ki, kBinBits);  // floor(k / 128)
  const __m512d t_hi = _mm512_i64gather_pd(j, t.exp2_hi, 8);
  const __m512d t_lo = _mm512_i64gather_pd(j, t.exp2_lo, 8);
  // 2^(j/128) (1 + expm1) = t_hi + (t_hi expm1 + t_lo (1 + expm1)).
  const __m512d correction = _mm512_fmadd_pd(t_hi, expm1, _mm512_fmadd_pd(t_lo, expm1, t_lo));
  const __m512d mantissa = _mm512_add_pd(t_hi, correction);
  const __m512d power = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(scale, _mm512_set1_epi64(1023)), 52));
  return _mm512_mul_pd(mantissa, power);
}

}  // namespace

void pow_double_avx512(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                       std::int64_t n) noexcept {
  const PowTables& t = tables();
  const __m512d inf = _mm512_set1_pd(__builtin_inf());
  for (std::int64_t i = 0; i < n; i += 8) {
    const std::int64_t count = n - i < 8 ? n - i : 8;
    const auto lanes = static_cast<__mmask8>((1u << count) - 1u);
    // Lanes beyond the end compute pow(1, 1).
    const __m512d x = a_step != 0 ? _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), lanes, a + i) : _mm512_set1_pd(a[0]);
    const __m512d y = b_step != 0 ? _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), lanes, b + i) : _mm512_set1_pd(b[0]);
    const __m512d ax = _mm512_abs_pd(x);
    __mmask8 regular = _mm512_cmp_pd_mask(ax, _mm512_setzero_pd(), _CMP_GT_OQ) &
                       _mm512_cmp_pd_mask(ax, inf, _CMP_LT_OQ) &
                       _mm512_cmp_pd_mask(_mm512_abs_pd(y), inf, _CMP_LT_OQ);
    __m512d log_hi, log_lo;
    log_double_double(t, _mm512_mask_blend_pd(regular, _mm512_set1_pd(1.0), ax), log_hi, log_lo);
    const __m512d y_regular = _mm512_mask_blend_pd(regular, _mm512_setzero_pd(), y);
    const __m512d z_hi = _mm512_mul_pd(y_regular, log_hi);
    const __m512d z_lo = _mm512_fmadd_pd(y_regular, log_lo, _mm512_fmsub_pd(y_regular, log_hi, z_hi));
    regular &= _mm512_cmp_pd_mask(_mm512_abs_pd(z_hi), _mm512_set1_pd(708.0), _CMP_LE_OQ);
    const __m512d z_bounded = _mm512_mask_blend_pd(regular, _mm512_setzero_pd(), z_hi);
    __m512d r = pow_apply_base_sign(
        x, y, exp_double_double(t, z_bounded, _mm512_mask_blend_pd(regular, _mm512_setzero_pd(), z_lo)));
    if ((regular & lanes) != lanes) {
      // From the loaded operands, not from a and b: out may be one of them.
      alignas(64) double xs[8], ys[8], rs[8];
      _mm512_store_pd(xs, x);
      _mm512_store_pd(ys, y);
      _mm512_store_pd(rs, r);
      for (std::int64_t j = 0; j < count; ++j) {
        if (!((regular >> j) & 1u)) rs[j] = pow(xs[j], ys[j]);
      }
      r = _mm512_load_pd(rs);
    }
    _mm512_mask_storeu_pd(out + i, lanes, r);
  }
}

}  // namespace tunekit::cpu::detail
#endif
