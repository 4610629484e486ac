// The portable path of the unary kernels: the operations of unary_math.inl
// over plain scalars, run once as a loop the compiler may vectorise for the
// baseline instruction set (unary_portable) and once with vectorisation
// disabled (unary_scalar, the serial reference that calibration checks every
// candidate against). FLOAT16 and BFLOAT16 go through the conversions of
// tunekit/core/half_precision.hpp.
#include <math.h>

#include <bit>
#include <cstdint>

#include "unary_paths.hpp"
#include "tunekit/core/half_precision.hpp"

namespace tunekit::cpu::detail {
namespace {

using core::DataType;

template <class F>
struct Bits;
template <>
struct Bits<float> {
  using U = std::uint32_t;
  static constexpr int kMantissa = 23;
  static constexpr U kBias = 127;
  static constexpr U kSign = 0x80000000u;
  static constexpr U kMantissaMask = 0x007FFFFFu;
};
template <>
struct Bits<double> {
  using U = std::uint64_t;
  static constexpr int kMantissa = 52;
  static constexpr U kBias = 1023;
  static constexpr U kSign = 0x8000000000000000ull;
  static constexpr U kMantissaMask = 0x000FFFFFFFFFFFFFull;
};

// The policy of unary_math.inl over one scalar; no fused multiply-add, which
// the baseline instruction set lacks (a library fma would be slow).
template <class F>
struct Scalar {
  using T = F;
  using V = F;
  using M = bool;
  using B = Bits<F>;
  static V set(T x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V div(V a, V b) { return a / b; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V sqrt(V a) {
    if constexpr (sizeof(T) == 4) {
      return __builtin_sqrtf(a);
    } else {
      return __builtin_sqrt(a);
    }
  }
  // Like minps/maxps: a NaN first operand gives the second, so the clamps
  // of unary_math.inl never feed a NaN to the integer conversion in pow2.
  static V min(V a, V b) { return a < b ? a : b; }
  static V max(V a, V b) { return a > b ? a : b; }
  static V abs(V a) { return std::bit_cast<V>(std::bit_cast<typename B::U>(a) & ~B::kSign); }
  static V neg(V a) { return std::bit_cast<V>(std::bit_cast<typename B::U>(a) ^ B::kSign); }
  static V or_sign(V a, V sign) {
    return std::bit_cast<V>(std::bit_cast<typename B::U>(a) | (std::bit_cast<typename B::U>(sign) & B::kSign));
  }
  static M lt(V a, V b) { return a < b; }
  static M gt(V a, V b) { return a > b; }
  static M eq(V a, V b) { return a == b; }
  static M is_nan(V a) { return a != a; }
  static V select(M m, V a, V b) { return m ? a : b; }
  static V round(V a) {
    const T magic = T(1.5) * T(typename B::U{1} << B::kMantissa);
    return (a + magic) - magic;
  }
  static V pow2(V n) {
    const auto e = static_cast<typename B::U>(static_cast<std::int64_t>(n) + static_cast<std::int64_t>(B::kBias));
    return std::bit_cast<V>(e << B::kMantissa);
  }
  static V exponent(V a) {
    const auto e = static_cast<std::int64_t>(std::bit_cast<typename B::U>(a) >> B::kMantissa);
    return static_cast<V>(e - static_cast<std::int64_t>(B::kBias));
  }
  static V mantissa(V a) {
    return std::bit_cast<V>((std::bit_cast<typename B::U>(a) & B::kMantissaMask) |
                            (B::kBias << B::kMantissa));
  }
};

#include "unary_math.inl"

// 16-bit patterns: Half marks FLOAT16, Brain marks BFLOAT16.
struct Half {
  std::uint16_t bits;
};
struct Brain {
  std::uint16_t bits;
};

template <class E>
struct Element;
template <>
struct Element<float> {
  using Compute = float;
  static float in(float x) { return x; }
  static float out(float x) { return x; }
};
template <>
struct Element<double> {
  using Compute = double;
  static double in(double x) { return x; }
  static double out(double x) { return x; }
};
template <>
struct Element<Half> {
  using Compute = float;
  static float in(Half x) { return core::float16_to_float(x.bits); }
  static Half out(float x) { return {core::float_to_float16(x)}; }
};
template <>
struct Element<Brain> {
  using Compute = float;
  static float in(Brain x) { return core::bfloat16_to_float(x.bits); }
  static Brain out(float x) { return {core::float_to_bfloat16(x)}; }
};

#if defined(__clang__)
#define TUNEKIT_NO_VECTORISE __attribute__((noinline))
#else
#define TUNEKIT_NO_VECTORISE __attribute__((noinline, optimize("no-tree-vectorize")))
#endif

template <class E, bool Vectorise>
struct Loop {
  const E* in;
  E* out;
  std::int64_t n;
  template <class Op>
  void run() const {
    if constexpr (Vectorise) {
      run_simd<Op>();
    } else {
      run_scalar<Op>();
    }
  }
  template <class Op>
  void run_simd() const {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) out[i] = Element<E>::out(Op::apply(Element<E>::in(in[i])));
  }
  template <class Op>
  TUNEKIT_NO_VECTORISE void run_scalar() const {
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (std::int64_t i = 0; i < n; ++i) out[i] = Element<E>::out(Op::apply(Element<E>::in(in[i])));
  }
};

// The integer operations of unary_math.inl without its simd pragmas.
template <class I, class U>
TUNEKIT_NO_VECTORISE void integer_scalar(UnaryOp op, const I* in, I* out, std::int64_t n) noexcept {
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (std::int64_t i = 0; i < n; ++i) {
    const I x = in[i];
    const I negated = static_cast<I>(U(0) - static_cast<U>(x));
    switch (op) {
      case UnaryOp::ABS: out[i] = x < 0 ? negated : x; break;
      case UnaryOp::NEG: out[i] = negated; break;
      case UnaryOp::RELU: out[i] = x < 0 ? I(0) : x; break;
      case UnaryOp::NOT: out[i] = static_cast<I>(x == 0); break;
      default: break;
    }
  }
}

void integral_scalar(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
  switch (type) {
    case DataType::INT32:
      integer_scalar<std::int32_t, std::uint32_t>(op, static_cast<const std::int32_t*>(in),
                                                  static_cast<std::int32_t*>(out), n);
      break;
    case DataType::INT64:
      integer_scalar<std::int64_t, std::uint64_t>(op, static_cast<const std::int64_t*>(in),
                                                  static_cast<std::int64_t*>(out), n);
      break;
    case DataType::BOOL:
      integer_scalar<std::uint8_t, std::uint8_t>(op, static_cast<const std::uint8_t*>(in),
                                                 static_cast<std::uint8_t*>(out), n);
      break;
    default: break;
  }
}

template <bool Vectorise>
void run(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
  switch (type) {
    case DataType::FLOAT:
      dispatch_floating<Scalar<float>>(
          op, Loop<float, Vectorise>{static_cast<const float*>(in), static_cast<float*>(out), n});
      break;
    case DataType::DOUBLE:
      dispatch_floating<Scalar<double>>(
          op, Loop<double, Vectorise>{static_cast<const double*>(in), static_cast<double*>(out), n});
      break;
    case DataType::FLOAT16:
      dispatch_floating<Scalar<float>>(
          op, Loop<Half, Vectorise>{static_cast<const Half*>(in), static_cast<Half*>(out), n});
      break;
    case DataType::BFLOAT16:
      dispatch_floating<Scalar<float>>(
          op, Loop<Brain, Vectorise>{static_cast<const Brain*>(in), static_cast<Brain*>(out), n});
      break;
    default:
      if constexpr (Vectorise) {
        dispatch_integral(op, type, in, out, n);
      } else {
        integral_scalar(op, type, in, out, n);
      }
      break;
  }
}

}  // namespace

void unary_scalar(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
  run<false>(op, type, in, out, n);
}

void unary_portable(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
  run<true>(op, type, in, out, n);
}

void gelu_float_portable(const float* in, float* out, std::int64_t n) noexcept {
  Loop<float, true>{in, out, n}.run<GeluFloatOp<Scalar<float>>>();
}

void widen_halves_portable(DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  if (type == DataType::BFLOAT16) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = core::bfloat16_to_float(in[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = core::float16_to_float(in[i]);
  }
}

void narrow_halves_portable(DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  if (type == DataType::BFLOAT16) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = core::float_to_bfloat16(in[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = core::float_to_float16(in[i]);
  }
}

}  // namespace tunekit::cpu::detail
