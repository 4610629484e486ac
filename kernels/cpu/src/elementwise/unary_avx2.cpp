// The AVX2 + FMA + F16C path of the unary kernels: unary_math.inl over 8
// floats or 4 doubles; the tail (fewer than one vector) goes through a small
// zero-filled buffer. FLOAT16 converts with F16C, BFLOAT16 widens by a shift
// and narrows with integer round-to-nearest-even (core::float_to_bfloat16's
// rounding). Compiled with -mavx2 -mfma -mf16c; everything but the entry
// point stays in the anonymous namespace (tunekit/cpu/isa.hpp).
#include <math.h>

#include <cstdint>

#include "unary_paths.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include "x86_intrinsics.hpp"

#include "pow_tables.hpp"

namespace tunekit::cpu::detail {
namespace {

using core::DataType;

struct F32 {
  using T = float;
  using V = __m256;
  using M = __m256;
  static constexpr int kLanes = 8;
  static V set(T x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V sqrt(V a) { return _mm256_sqrt_ps(a); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V abs(V a) { return _mm256_andnot_ps(set(-0.0f), a); }
  static V neg(V a) { return _mm256_xor_ps(a, set(-0.0f)); }
  static V or_sign(V a, V sign) { return _mm256_or_ps(a, _mm256_and_ps(sign, set(-0.0f))); }
  static M lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static M gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static M is_nan(V a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static M either(M a, M b) { return _mm256_or_ps(a, b); }
  static bool any(M m) { return _mm256_movemask_ps(m) != 0; }
  static V select(M m, V a, V b) { return _mm256_blendv_ps(b, a, m); }
  static V round(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V pow2(V n) {
    const __m256i biased = _mm256_castps_si256(_mm256_add_ps(n, set(12582912.0f + 127.0f)));  // 1.5 * 2^23
    return _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23));
  }
  static V exponent(V a) {
    const __m256i e = _mm256_srli_epi32(_mm256_castps_si256(a), 23);
    const V f = _mm256_castsi256_ps(_mm256_or_si256(e, _mm256_set1_epi32(0x4B000000)));  // 2^23 + e
    return sub(f, set(8388608.0f + 127.0f));
  }
  static V mantissa(V a) {
    const __m256i m = _mm256_and_si256(_mm256_castps_si256(a), _mm256_set1_epi32(0x007FFFFF));
    return _mm256_castsi256_ps(_mm256_or_si256(m, _mm256_set1_epi32(0x3F800000)));
  }
};

struct F64 {
  using T = double;
  using V = __m256d;
  using M = __m256d;
  static constexpr int kLanes = 4;
  static V set(T x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V div(V a, V b) { return _mm256_div_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V sqrt(V a) { return _mm256_sqrt_pd(a); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V abs(V a) { return _mm256_andnot_pd(set(-0.0), a); }
  static V neg(V a) { return _mm256_xor_pd(a, set(-0.0)); }
  static V or_sign(V a, V sign) { return _mm256_or_pd(a, _mm256_and_pd(sign, set(-0.0))); }
  static M lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static M gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
  static M eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static M is_nan(V a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
  static M either(M a, M b) { return _mm256_or_pd(a, b); }
  static bool any(M m) { return _mm256_movemask_pd(m) != 0; }
  static V select(M m, V a, V b) { return _mm256_blendv_pd(b, a, m); }
  static V round(V a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V pow2(V n) {
    const __m256i biased = _mm256_castpd_si256(_mm256_add_pd(n, set(6755399441055744.0 + 1023.0)));  // 1.5 * 2^52
    return _mm256_castsi256_pd(_mm256_slli_epi64(biased, 52));
  }
  static V exponent(V a) {
    const __m256i e = _mm256_srli_epi64(_mm256_castpd_si256(a), 52);
    const V f = _mm256_castsi256_pd(_mm256_or_si256(e, _mm256_set1_epi64x(0x4330000000000000LL)));  // 2^52 + e
    return sub(f, set(4503599627370496.0 + 1023.0));
  }
  static V mantissa(V a) {
    const __m256i m = _mm256_and_si256(_mm256_castpd_si256(a), _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL));
    return _mm256_castsi256_pd(_mm256_or_si256(m, _mm256_set1_epi64x(0x3FF0000000000000LL)));
  }
};

#include "unary_math.inl"

// The Pows' lanes (pow_lanes.inl): F64's arithmetic on 4 doubles (for
// float Pow widened from 4 floats); the tail through AVX's masked loads
// and stores.
struct PowF64 : F64 {
  using I = __m256i;
  using Floats = __m128;
  static V fms(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
  static V fnma(V a, V b, V c) { return _mm256_fnmadd_pd(a, b, c); }
  static I bits(V a) { return _mm256_castpd_si256(a); }
  static V from_bits(I u) { return _mm256_castsi256_pd(u); }
  static I add_i(I a, I b) { return _mm256_add_epi64(a, b); }
  static I sub_i(I a, I b) { return _mm256_sub_epi64(a, b); }
  static I and_i(I a, I b) { return _mm256_and_si256(a, b); }
  static I or_i(I a, I b) { return _mm256_or_si256(a, b); }
  static I set_i(long long v) { return _mm256_set1_epi64x(v); }
  template <int N>
  static I shift_right(I a) { return _mm256_srli_epi64(a, N); }
  template <int N>
  static I shift_left(I a) { return _mm256_slli_epi64(a, N); }
  static M regular(V ax, V ay, V inf) {
    return _mm256_and_pd(_mm256_and_pd(lt(set(0.0), ax), lt(ax, inf)), lt(ay, inf));
  }
  static unsigned lane_bits(M m) { return static_cast<unsigned>(_mm256_movemask_pd(m)); }
  static M both(M a, M b) { return _mm256_and_pd(a, b); }
  static V gather(const double* table, I index) { return _mm256_i64gather_pd(table, index, 8); }
  // A gather too: a lookup through four registers' permutes and blends (13
  // instructions) ran Pow 1.2 times slower than it on the Intel machine
  // measured.
  static V lookup16(const double* table, I index) { return gather(table, index); }
  static __m128i first(int count) { return _mm_cmpgt_epi32(_mm_set1_epi32(count), _mm_setr_epi32(0, 1, 2, 3)); }
  static __m256i first_doubles(int count) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static V load_doubles(const double* p, int count) {
    if (count == kLanes) return _mm256_loadu_pd(p);
    const __m256i lanes = first_doubles(count);
    return _mm256_blendv_pd(set(1.0), _mm256_maskload_pd(p, lanes), _mm256_castsi256_pd(lanes));
  }
  static void store_doubles(double* p, V v, int count) {
    if (count == kLanes) {
      _mm256_storeu_pd(p, v);
    } else {
      _mm256_maskstore_pd(p, first_doubles(count), v);
    }
  }
  static Floats load_floats(const float* p, int count) {
    if (count == kLanes) return _mm_loadu_ps(p);
    const __m128i lanes = first(count);
    return _mm_blendv_ps(_mm_set1_ps(1.0f), _mm_maskload_ps(p, lanes), _mm_castsi128_ps(lanes));
  }
  static void store_floats(float* p, Floats f, int count) {
    if (count == kLanes) {
      _mm_storeu_ps(p, f);
    } else {
      _mm_maskstore_ps(p, first(count), f);
    }
  }
  static Floats broadcast_float(float v) { return _mm_set1_ps(v); }
  static V widen(Floats f) { return _mm256_cvtps_pd(f); }
  static Floats narrow(V d) { return _mm256_cvtpd_ps(d); }
  static void spill(double* p, V v) { _mm256_store_pd(p, v); }
  static V fill(const double* p) { return _mm256_load_pd(p); }
  static void spill(float* p, Floats f) { _mm_store_ps(p, f); }
  static Floats fill(const float* p) { return _mm_load_ps(p); }
};

#include "pow_lanes.inl"

// Runs `block` (which processes exactly Lanes elements from a pointer pair)
// over n elements; the last partial block through a zero-filled buffer.
template <class E, int Lanes, class Block>
void blocks(const E* in, E* out, std::int64_t n, const Block& block) {
  std::int64_t i = 0;
  for (; i + Lanes <= n; i += Lanes) block(in + i, out + i);
  if (i < n) {
    alignas(32) E src[Lanes] = {};
    alignas(32) E dst[Lanes];
    for (std::int64_t k = 0; k < n - i; ++k) src[k] = in[i + k];
    block(src, dst);
    for (std::int64_t k = 0; k < n - i; ++k) out[i + k] = dst[k];
  }
}

struct FloatLoop {
  const float* in;
  float* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    blocks<float, 8>(in, out, n, [](const float* s, float* d) { _mm256_storeu_ps(d, Op::apply(_mm256_loadu_ps(s))); });
  }
};

struct DoubleLoop {
  const double* in;
  double* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    blocks<double, 4>(in, out, n,
                      [](const double* s, double* d) { _mm256_storeu_pd(d, Op::apply(_mm256_loadu_pd(s))); });
  }
};

__m256 widen_float16(__m128i h) { return _mm256_cvtph_ps(h); }
__m128i narrow_float16(__m256 x) { return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

__m256 widen_bfloat16(__m128i h) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)); }
__m128i narrow_bfloat16(__m256 x) {
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i high = _mm256_srli_epi32(bits, 16);
  const __m256i bias = _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), _mm256_and_si256(high, _mm256_set1_epi32(1)));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
  const __m256i quiet = _mm256_or_si256(high, _mm256_set1_epi32(0x40));  // a NaN stays NaN
  const __m256i chosen = _mm256_blendv_epi8(rounded, quiet, _mm256_castps_si256(F32::is_nan(x)));
  // Every lane fits 16 bits: pack, then gather the two 64-bit halves that hold lanes 0-3 and 4-7.
  const __m256i packed = _mm256_packus_epi32(chosen, chosen);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08));
}

// FLOAT16 (Brain = false) or BFLOAT16 (Brain = true) through float.
template <bool Brain>
struct HalfLoop {
  const std::uint16_t* in;
  std::uint16_t* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    blocks<std::uint16_t, 8>(in, out, n, [](const std::uint16_t* s, std::uint16_t* d) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m256 x = Brain ? widen_bfloat16(h) : widen_float16(h);
      const __m256 y = Op::apply(x);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), Brain ? narrow_bfloat16(y) : narrow_float16(y));
    });
  }
};

}  // namespace

void unary_avx2(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
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

void gelu_float_avx2(const float* in, float* out, std::int64_t n) noexcept {
  FloatLoop{in, out, n}.run<GeluFloatOp<F32>>();
}

void widen_halves_avx2(DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  const bool brain = type == DataType::BFLOAT16;
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, brain ? widen_bfloat16(h) : widen_float16(h));
  }
  if (i < n) {  // the tail through a zero-filled vector
    alignas(16) std::uint16_t h[8] = {};
    alignas(32) float x[8];
    for (std::int64_t j = i; j < n; ++j) h[j - i] = in[j];
    const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(h));
    _mm256_store_ps(x, brain ? widen_bfloat16(v) : widen_float16(v));
    for (std::int64_t j = i; j < n; ++j) out[j] = x[j - i];
  }
}

void narrow_halves_avx2(DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  const bool brain = type == DataType::BFLOAT16;
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), brain ? narrow_bfloat16(x) : narrow_float16(x));
  }
  if (i < n) {
    alignas(32) float x[8] = {};
    alignas(16) std::uint16_t h[8];
    for (std::int64_t j = i; j < n; ++j) x[j - i] = in[j];
    const __m256 v = _mm256_load_ps(x);
    _mm_store_si128(reinterpret_cast<__m128i*>(h), brain ? narrow_bfloat16(v) : narrow_float16(v));
    for (std::int64_t j = i; j < n; ++j) out[j] = h[j - i];
  }
}

void pow_float_avx2(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                    std::int64_t n) noexcept {
  pow_float_lanes<PowF64>(a, a_step, b, b_step, out, n);
}

void pow_double_avx2(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                     std::int64_t n) noexcept {
  pow_double_lanes<PowF64>(a, a_step, b, b_step, out, n);
}

}  // namespace tunekit::cpu::detail
#endif
