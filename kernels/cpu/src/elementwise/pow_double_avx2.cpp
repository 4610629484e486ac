// Double Pow on AVX2 + FMA: the algorithm of pow_double_avx512.cpp (read its
// comment first) on 4 lanes, with what AVX2 lacks built from what it has:
// the exponent's arithmetic shift from a biased logical one, 64-bit integer
// <-> double conversions of small integers through the 2^52 shifter, masks
// as all-ones lanes, the loop's tail through a padded copy. Same tables
// (pow_tables.hpp), same domain: zero, infinite or NaN operands and
// |y log |x|| beyond 708 take the C library's pow.
#include "unary_paths.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
#include "x86_intrinsics.hpp"
#include <math.h>

#include <cstdint>

#include "pow_sign_avx2.hpp"
#include "pow_tables.hpp"

namespace tunekit::cpu::detail {
namespace {

// 2^52 and 1.5 * 2^52: adding a small integer-valued double to them puts
// the integer in the low mantissa bits.
constexpr double kTwo52 = 0x1p52;
constexpr double kShifter = 0x1.8p52;

inline __m256i bits_of(__m256d x) { return _mm256_castpd_si256(x); }
inline __m256d from_bits(__m256i u) { return _mm256_castsi256_pd(u); }

// A non-negative integer below 2^52 as a double.
inline __m256d small_to_double(__m256i v) {
  const __m256d two52 = _mm256_set1_pd(kTwo52);
  return _mm256_sub_pd(from_bits(_mm256_or_si256(v, bits_of(two52))), two52);
}

inline void two_sum(__m256d a, __m256d b, __m256d& s, __m256d& err) {
  s = _mm256_add_pd(a, b);
  const __m256d bb = _mm256_sub_pd(s, a);
  err = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(s, bb)), _mm256_sub_pd(b, bb));
}

// log x = hi + lo for positive finite x (subnormals included).
inline void log_double_double(const PowTables& t, __m256d x, __m256d& hi, __m256d& lo) {
  const __m256d subnormal = _mm256_cmp_pd(x, _mm256_set1_pd(0x1p-1022), _CMP_LT_OQ);
  x = _mm256_blendv_pd(x, _mm256_mul_pd(x, _mm256_set1_pd(0x1p52)), subnormal);
  const __m256i bits = bits_of(x);
  const __m256i offset = _mm256_sub_epi64(bits, _mm256_set1_epi64x(static_cast<long long>(kRangeStartBits)));
  // e + 1024 in [2, 2048] for every positive finite x: a logical shift of
  // the offset biased by 1024 << 52 is the arithmetic shift of the offset.
  const __m256i biased_exponent =
      _mm256_srli_epi64(_mm256_add_epi64(offset, _mm256_set1_epi64x(1024LL << 52)), 52);
  const __m256i exponent_bits = _mm256_sub_epi64(biased_exponent, _mm256_set1_epi64x(1024));
  const __m256i bin = _mm256_and_si256(_mm256_srli_epi64(offset, 52 - kBinBits), _mm256_set1_epi64x(kBins - 1));
  const __m256d m = from_bits(_mm256_sub_epi64(bits, _mm256_slli_epi64(exponent_bits, 52)));
  __m256d e = _mm256_sub_pd(small_to_double(biased_exponent), _mm256_set1_pd(1024.0));
  e = _mm256_sub_pd(e, _mm256_and_pd(subnormal, _mm256_set1_pd(52.0)));

  const __m256d inverse_c = _mm256_i64gather_pd(t.inverse_c, bin, 8);
  const __m256d log_c_hi = _mm256_i64gather_pd(t.log_c_hi, bin, 8);
  const __m256d log_c_lo = _mm256_i64gather_pd(t.log_c_lo, bin, 8);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d p = _mm256_mul_pd(m, inverse_c);
  const __m256d p_lo = _mm256_fmsub_pd(m, inverse_c, p);
  __m256d r, r_lo;
  two_sum(_mm256_sub_pd(p, one), p_lo, r, r_lo);

  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d r2_lo = _mm256_fmsub_pd(r, r, r2);
  __m256d series = _mm256_set1_pd(1.0 / 9);
  for (int k = 8; k >= 3; --k) {
    series = _mm256_fmadd_pd(series, r, _mm256_set1_pd((k % 2 == 0 ? -1.0 : 1.0) / k));
  }
  const __m256d cubic = _mm256_mul_pd(_mm256_mul_pd(r2, r), series);

  const __m256d half = _mm256_set1_pd(0.5);
  __m256d s1, err1, s2, err2, s3, err3;
  two_sum(_mm256_mul_pd(e, _mm256_set1_pd(t.ln2_short_hi)), log_c_hi, s1, err1);
  two_sum(s1, r, s2, err2);
  two_sum(s2, _mm256_mul_pd(_mm256_set1_pd(-0.5), r2), s3, err3);
  const __m256d small = _mm256_add_pd(
      _mm256_add_pd(_mm256_fmadd_pd(e, _mm256_set1_pd(t.ln2_short_lo), log_c_lo),
                    _mm256_add_pd(_mm256_add_pd(err1, err2), err3)),
      _mm256_add_pd(_mm256_fnmadd_pd(half, r2_lo, _mm256_fnmadd_pd(r, r_lo, r_lo)), cubic));
  hi = _mm256_add_pd(s3, small);
  lo = _mm256_sub_pd(small, _mm256_sub_pd(hi, s3));
}

// exp(hi + lo) for |hi| <= 708 (normal results).
inline __m256d exp_double_double(const PowTables& t, __m256d hi, __m256d lo) {
  const __m256d k = _mm256_round_pd(_mm256_mul_pd(hi, _mm256_set1_pd(kBins / kLn2Hi)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d s = _mm256_fnmadd_pd(k, _mm256_set1_pd(t.ln2_per_bin_hi), hi);
  s = _mm256_add_pd(_mm256_fnmadd_pd(k, _mm256_set1_pd(t.ln2_per_bin_lo), lo), s);
  constexpr double kExpm1Coefficients[] = {1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0};
  __m256d series = _mm256_set1_pd(1.0 / 720);
  for (double f : kExpm1Coefficients) series = _mm256_fmadd_pd(series, s, _mm256_set1_pd(f));
  const __m256d expm1 = _mm256_mul_pd(series, s);
  // k (|k| < 2^18) as a 64-bit integer: the shifter's low bits.
  const __m256i ki = _mm256_sub_epi64(bits_of(_mm256_add_pd(k, _mm256_set1_pd(kShifter))),
                                      bits_of(_mm256_set1_pd(kShifter)));
  const __m256i j = _mm256_and_si256(ki, _mm256_set1_epi64x(kBins - 1));
  // floor(k / 128) by a logical shift of k + 2^40, then the bias removed.
  const __m256i scale = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(ki, _mm256_set1_epi64x(1LL << 40)), kBinBits),
                                         _mm256_set1_epi64x(1LL << (40 - kBinBits)));
  const __m256d t_hi = _mm256_i64gather_pd(t.exp2_hi, j, 8);
  const __m256d t_lo = _mm256_i64gather_pd(t.exp2_lo, j, 8);
  const __m256d correction = _mm256_fmadd_pd(t_hi, expm1, _mm256_fmadd_pd(t_lo, expm1, t_lo));
  const __m256d mantissa = _mm256_add_pd(t_hi, correction);
  const __m256d power = from_bits(_mm256_slli_epi64(_mm256_add_epi64(scale, _mm256_set1_epi64x(1023)), 52));
  return _mm256_mul_pd(mantissa, power);
}

// Four lanes; the fallback lanes take pow from the loaded operands (out
// may be one of the inputs).
inline __m256d pow4(const PowTables& t, __m256d x, __m256d y) {
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d ay = _mm256_andnot_pd(_mm256_set1_pd(-0.0), y);
  __m256d regular = _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(ax, _mm256_setzero_pd(), _CMP_GT_OQ),
                                                _mm256_cmp_pd(ax, inf, _CMP_LT_OQ)),
                                  _mm256_cmp_pd(ay, inf, _CMP_LT_OQ));
  __m256d log_hi, log_lo;
  log_double_double(t, _mm256_blendv_pd(_mm256_set1_pd(1.0), ax, regular), log_hi, log_lo);
  const __m256d y_regular = _mm256_and_pd(regular, y);
  const __m256d z_hi = _mm256_mul_pd(y_regular, log_hi);
  const __m256d z_lo = _mm256_fmadd_pd(y_regular, log_lo, _mm256_fmsub_pd(y_regular, log_hi, z_hi));
  const __m256d az = _mm256_andnot_pd(_mm256_set1_pd(-0.0), z_hi);
  regular = _mm256_and_pd(regular, _mm256_cmp_pd(az, _mm256_set1_pd(708.0), _CMP_LE_OQ));
  __m256d r = pow_apply_base_sign(x, y, exp_double_double(t, _mm256_and_pd(regular, z_hi), _mm256_and_pd(regular, z_lo)));
  const int mask = _mm256_movemask_pd(regular);
  if (mask != 0xF) {
    alignas(32) double xs[4], ys[4], rs[4];
    _mm256_store_pd(xs, x);
    _mm256_store_pd(ys, y);
    _mm256_store_pd(rs, r);
    for (int lane = 0; lane < 4; ++lane) {
      if (!((mask >> lane) & 1)) rs[lane] = pow(xs[lane], ys[lane]);
    }
    r = _mm256_load_pd(rs);
  }
  return r;
}

}  // namespace

void pow_double_avx2(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                     std::int64_t n) noexcept {
  const PowTables& t = tables();
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d x = a_step != 0 ? _mm256_loadu_pd(a + i) : _mm256_set1_pd(a[0]);
    const __m256d y = b_step != 0 ? _mm256_loadu_pd(b + i) : _mm256_set1_pd(b[0]);
    _mm256_storeu_pd(out + i, pow4(t, x, y));
  }
  if (i < n) {
    // The tail through padded lanes (pow(1, 1) beyond the end).
    alignas(32) double xs[4] = {1.0, 1.0, 1.0, 1.0}, ys[4] = {1.0, 1.0, 1.0, 1.0}, rs[4];
    for (std::int64_t lane = 0; i + lane < n; ++lane) {
      xs[lane] = a[a_step != 0 ? i + lane : 0];
      ys[lane] = b[b_step != 0 ? i + lane : 0];
    }
    _mm256_store_pd(rs, pow4(t, _mm256_load_pd(xs), _mm256_load_pd(ys)));
    for (std::int64_t lane = 0; i + lane < n; ++lane) out[i + lane] = rs[lane];
  }
}

}  // namespace tunekit::cpu::detail
#endif
