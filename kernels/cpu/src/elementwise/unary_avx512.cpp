// The AVX-512 path of the unary kernels: unary_math.inl over 16 floats or 8
// doubles, the tail through masked loads and stores. FLOAT16 is converted
// with the F16C-style vcvtph2ps/vcvtps2ph of AVX-512F; BFLOAT16 widens by a
// shift and narrows with integer round-to-nearest-even (the same rounding as
// core::float_to_bfloat16, subnormals included, which the AVX-512 BF16
// instruction would flush). Compiled with -mavx512f/bw/vl/dq; everything but
// the entry point stays in the anonymous namespace (tunekit/cpu/isa.hpp).
#include <math.h>

#include <cstdint>

#include "unary_paths.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#include "x86_intrinsics.hpp"

#include "pow_tables.hpp"

namespace tunekit::cpu::detail {
namespace {

using core::DataType;

struct F32 {
  using T = float;
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  static V set(T x) { return _mm512_set1_ps(x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V div(V a, V b) { return _mm512_div_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V sqrt(V a) { return _mm512_sqrt_ps(a); }
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V abs(V a) { return _mm512_andnot_ps(set(-0.0f), a); }
  static V neg(V a) { return _mm512_xor_ps(a, set(-0.0f)); }
  static V or_sign(V a, V sign) { return _mm512_or_ps(a, _mm512_and_ps(sign, set(-0.0f))); }
  static M lt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static M gt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static M eq(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static M is_nan(V a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static M either(M a, M b) { return a | b; }
  static bool any(M m) { return m != 0; }
  static V select(M m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
  static V round(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V pow2(V n) {
    const __m512i biased = _mm512_castps_si512(_mm512_add_ps(n, set(12582912.0f + 127.0f)));  // 1.5 * 2^23
    return _mm512_castsi512_ps(_mm512_slli_epi32(biased, 23));
  }
  static V exponent(V a) {
    const __m512i e = _mm512_srli_epi32(_mm512_castps_si512(a), 23);
    const V f = _mm512_castsi512_ps(_mm512_or_si512(e, _mm512_set1_epi32(0x4B000000)));  // 2^23 + e
    return sub(f, set(8388608.0f + 127.0f));
  }
  static V mantissa(V a) {
    const __m512i m = _mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x007FFFFF));
    return _mm512_castsi512_ps(_mm512_or_si512(m, _mm512_set1_epi32(0x3F800000)));
  }
};

struct F64 {
  using T = double;
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kLanes = 8;
  static V set(T x) { return _mm512_set1_pd(x); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V div(V a, V b) { return _mm512_div_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V sqrt(V a) { return _mm512_sqrt_pd(a); }
  static V min(V a, V b) { return _mm512_min_pd(a, b); }
  static V max(V a, V b) { return _mm512_max_pd(a, b); }
  static V abs(V a) { return _mm512_andnot_pd(set(-0.0), a); }
  static V neg(V a) { return _mm512_xor_pd(a, set(-0.0)); }
  static V or_sign(V a, V sign) { return _mm512_or_pd(a, _mm512_and_pd(sign, set(-0.0))); }
  static M lt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static M gt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
  static M eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  static M is_nan(V a) { return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
  static M either(M a, M b) { return a | b; }
  static bool any(M m) { return m != 0; }
  static V select(M m, V a, V b) { return _mm512_mask_blend_pd(m, b, a); }
  static V round(V a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V pow2(V n) {
    const __m512i biased = _mm512_castpd_si512(_mm512_add_pd(n, set(6755399441055744.0 + 1023.0)));  // 1.5 * 2^52
    return _mm512_castsi512_pd(_mm512_slli_epi64(biased, 52));
  }
  static V exponent(V a) {
    const __m512i e = _mm512_srli_epi64(_mm512_castpd_si512(a), 52);
    const V f = _mm512_castsi512_pd(_mm512_or_si512(e, _mm512_set1_epi64(0x4330000000000000LL)));  // 2^52 + e
    return sub(f, set(4503599627370496.0 + 1023.0));
  }
  static V mantissa(V a) {
    const __m512i m = _mm512_and_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(0x000FFFFFFFFFFFFFLL));
    return _mm512_castsi512_pd(_mm512_or_si512(m, _mm512_set1_epi64(0x3FF0000000000000LL)));
  }
};

#include "unary_math.inl"

// The Pows' lanes (pow_lanes.inl): F64's arithmetic on 8 doubles (for
// float Pow widened from 8 floats).
struct PowF64 : F64 {
  using I = __m512i;
  using Floats = __m256;
  static V fms(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
  static V fnma(V a, V b, V c) { return _mm512_fnmadd_pd(a, b, c); }
  static I bits(V a) { return _mm512_castpd_si512(a); }
  static V from_bits(I u) { return _mm512_castsi512_pd(u); }
  static I add_i(I a, I b) { return _mm512_add_epi64(a, b); }
  static I sub_i(I a, I b) { return _mm512_sub_epi64(a, b); }
  static I and_i(I a, I b) { return _mm512_and_si512(a, b); }
  static I or_i(I a, I b) { return _mm512_or_si512(a, b); }
  static I set_i(long long v) { return _mm512_set1_epi64(v); }
  template <int N>
  static I shift_right(I a) { return _mm512_srli_epi64(a, N); }
  template <int N>
  static I shift_left(I a) { return _mm512_slli_epi64(a, N); }
  // The 16 entries in two registers, selected by the index's low 4 bits.
  static V lookup16(const double* table, I index) {
    return _mm512_permutex2var_pd(_mm512_load_pd(table), index, _mm512_load_pd(table + 8));
  }
  static M regular(V ax, V ay, V inf) { return lt(set(0.0), ax) & lt(ax, inf) & lt(ay, inf); }
  static unsigned lane_bits(M m) { return m; }
  static M both(M a, M b) { return a & b; }
  static V gather(const double* table, I index) { return _mm512_i64gather_pd(index, table, 8); }
  static __mmask8 first(int count) { return static_cast<__mmask8>((1u << count) - 1u); }
  static V load_doubles(const double* p, int count) { return _mm512_mask_loadu_pd(set(1.0), first(count), p); }
  static void store_doubles(double* p, V v, int count) { _mm512_mask_storeu_pd(p, first(count), v); }
  static Floats load_floats(const float* p, int count) {
    return _mm256_mask_loadu_ps(_mm256_set1_ps(1.0f), first(count), p);
  }
  static void store_floats(float* p, Floats f, int count) { _mm256_mask_storeu_ps(p, first(count), f); }
  static Floats broadcast_float(float v) { return _mm256_set1_ps(v); }
  static V widen(Floats f) { return _mm512_cvtps_pd(f); }
  static Floats narrow(V d) { return _mm512_cvtpd_ps(d); }
  static void spill(double* p, V v) { _mm512_store_pd(p, v); }
  static V fill(const double* p) { return _mm512_load_pd(p); }
  static void spill(float* p, Floats f) { _mm256_store_ps(p, f); }
  static Floats fill(const float* p) { return _mm256_load_ps(p); }
};

#include "pow_lanes.inl"

struct FloatLoop {
  const float* in;
  float* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, Op::apply(_mm512_loadu_ps(in + i)));
    if (i < n) {
      const auto m = static_cast<__mmask16>((1u << (n - i)) - 1u);
      _mm512_mask_storeu_ps(out + i, m, Op::apply(_mm512_maskz_loadu_ps(m, in + i)));
    }
  }
};

struct DoubleLoop {
  const double* in;
  double* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, Op::apply(_mm512_loadu_pd(in + i)));
    if (i < n) {
      const auto m = static_cast<__mmask8>((1u << (n - i)) - 1u);
      _mm512_mask_storeu_pd(out + i, m, Op::apply(_mm512_maskz_loadu_pd(m, in + i)));
    }
  }
};

__m512 widen_float16(__m256i h) { return _mm512_cvtph_ps(h); }
__m256i narrow_float16(__m512 x) { return _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

__m512 widen_bfloat16(__m256i h) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)); }
__m256i narrow_bfloat16(__m512 x) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i high = _mm512_srli_epi32(bits, 16);
  const __m512i bias = _mm512_add_epi32(_mm512_set1_epi32(0x7FFF), _mm512_and_si512(high, _mm512_set1_epi32(1)));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, bias), 16);
  const __m512i quiet = _mm512_or_si512(high, _mm512_set1_epi32(0x40));  // a NaN stays NaN
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(F32::is_nan(x), rounded, quiet));
}

// FLOAT16 (Brain = false) or BFLOAT16 (Brain = true) through float.
template <bool Brain>
struct HalfLoop {
  const std::uint16_t* in;
  std::uint16_t* out;
  std::int64_t n;
  static __m512 widen(__m256i h) { return Brain ? widen_bfloat16(h) : widen_float16(h); }
  static __m256i narrow(__m512 x) { return Brain ? narrow_bfloat16(x) : narrow_float16(x); }
  template <class Op>
  void run() const {
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), narrow(Op::apply(widen(h))));
    }
    if (i < n) {
      const auto m = static_cast<__mmask16>((1u << (n - i)) - 1u);
      _mm256_mask_storeu_epi16(out + i, m, narrow(Op::apply(widen(_mm256_maskz_loadu_epi16(m, in + i)))));
    }
  }
};

}  // namespace

void unary_avx512(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
  switch (type) {
    case DataType::FLOAT:
      dispatch_floating<F32>(op, FloatLoop{static_cast<const float*>(in), static_cast<float*>(out), n});
      break;
    case DataType::DOUBLE:
      dispatch_floating<F64>(op, DoubleLoop{static_cast<const double*>(in), static_cast<double*>(out), n});
      break;
    case DataType::FLOAT16:
      dispatch_floating<F32>(
          op, HalfLoop<false>{static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), n});
      break;
    case DataType::BFLOAT16:
      dispatch_floating<F32>(
          op, HalfLoop<true>{static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), n});
      break;
    default: dispatch_integral(op, type, in, out, n); break;
  }
}

void pow_float_avx512(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                      std::int64_t n) noexcept {
  pow_float_lanes<PowF64>(a, a_step, b, b_step, out, n);
}

void pow_double_avx512(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                       std::int64_t n) noexcept {
  pow_double_lanes<PowF64>(a, a_step, b, b_step, out, n);
}

void gelu_float_avx512(const float* in, float* out, std::int64_t n) noexcept {
  FloatLoop{in, out, n}.run<GeluFloatOp<F32>>();
}

void widen_halves_avx512(DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  const bool brain = type == DataType::BFLOAT16;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm512_storeu_ps(out + i, brain ? widen_bfloat16(h) : widen_float16(h));
  }
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m256i h = _mm256_maskz_loadu_epi16(m, in + i);
    _mm512_mask_storeu_ps(out + i, m, brain ? widen_bfloat16(h) : widen_float16(h));
  }
}

void narrow_halves_avx512(DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  const bool brain = type == DataType::BFLOAT16;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), brain ? narrow_bfloat16(x) : narrow_float16(x));
  }
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 x = _mm512_maskz_loadu_ps(m, in + i);
    _mm256_mask_storeu_epi16(out + i, m, brain ? narrow_bfloat16(x) : narrow_float16(x));
  }
}

}  // namespace tunekit::cpu::detail
#endif
