// The accuracy tests' yardstick: the exact value of a unary operation (in
// long double, or in double where that is exact enough for the type
// checked) and the error of a result in units in the last place (ULP) of
// its type at the exact value.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "tunekit/core/data_type.hpp"
#include "tunekit/cpu/unary_op.hpp"

namespace tunekit::cpu::ulp {

// In long double, so that the reference of DOUBLE results is itself exact
// to well below their ULP.
inline long double reference(UnaryOp op, long double x) {
  switch (op) {
    case UnaryOp::ABS: return fabsl(x);
    case UnaryOp::NEG: return -x;
    case UnaryOp::RELU: return x < 0 ? 0.0L : x;
    case UnaryOp::NOT: return x == 0 ? 1.0L : 0.0L;
    case UnaryOp::SQRT: return sqrtl(x);
    case UnaryOp::EXP: return expl(x);
    case UnaryOp::LOG: return logl(x);
    case UnaryOp::TANH: return tanhl(x);
    case UnaryOp::SIGMOID: return 1.0L / (1.0L + expl(-x));
    case UnaryOp::ERF: return erfl(x);
  }
  return 0.0L;
}

// In double: within about 2^-29 of a float ULP, and several times faster
// than long double, for the sweeps over every float.
inline double reference(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::ABS: return std::fabs(x);
    case UnaryOp::NEG: return -x;
    case UnaryOp::RELU: return x < 0 ? 0.0 : x;
    case UnaryOp::NOT: return x == 0 ? 1.0 : 0.0;
    case UnaryOp::SQRT: return std::sqrt(x);
    case UnaryOp::EXP: return std::exp(x);
    case UnaryOp::LOG: return std::log(x);
    case UnaryOp::TANH: return std::tanh(x);
    case UnaryOp::SIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case UnaryOp::ERF: return std::erf(x);
  }
  return 0.0;
}

// Precision (significand bits with the implicit one), smallest normal
// exponent and largest finite value of a floating type.
struct Format {
  int precision;
  int min_exponent;
  double max_finite;
};
inline Format format_of(core::DataType type) {
  switch (type) {
    case core::DataType::DOUBLE: return {53, -1022, std::numeric_limits<double>::max()};
    case core::DataType::FLOAT16: return {11, -14, 65504.0};
    case core::DataType::BFLOAT16: return {8, -126, 3.3895313892515355e38};
    default: return {24, -126, std::numeric_limits<float>::max()};
  }
}

// |got - expected| in units in the last place of `type` at `expected`; 0
// when both are the same infinity or NaN, or `expected` overflows the type
// and `got` is that infinity; infinity for any other mismatch of kinds,
// a floating zero of the wrong sign included (integers have one zero).
inline double ulp_error(core::DataType type, long double expected, double got) {
  if (std::isnan(expected) || std::isnan(got)) {
    return std::isnan(expected) && std::isnan(got) ? 0.0 : HUGE_VAL;
  }
  const Format f = format_of(type);
  if (std::isinf(got)) {
    const bool overflow = fabsl(expected) > f.max_finite * (1 + std::ldexp(1.0L, -f.precision));
    return overflow && std::signbit(got) == std::signbit(expected) ? 0.0 : HUGE_VAL;
  }
  if (std::isinf(expected)) return HUGE_VAL;
  if (expected == got) {
    const bool same_zero = std::signbit(got) == std::signbit(expected) || !core::is_floating_point(type);
    return got != 0 || same_zero ? 0.0 : HUGE_VAL;
  }
  int exponent = 0;
  std::frexp(expected, &exponent);  // expected = m 2^exponent, m in [0.5, 1)
  const int e = std::max(exponent - 1, f.min_exponent);
  return static_cast<double>(fabsl(got - expected) / std::ldexp(1.0L, e - (f.precision - 1)));
}

// ulp_error(FLOAT, expected, got) in double arithmetic, which is exact
// enough for a float result (the error's own error is about 2^-29 ULP) and
// an order of magnitude faster than long double: the sweep over every float
// calls it billions of times.
inline double float_ulp_error(double expected, float got) {
  if (std::isnan(expected) || std::isnan(got)) return std::isnan(expected) && std::isnan(got) ? 0.0 : HUGE_VAL;
  if (std::isinf(got)) {
    const bool overflow = std::fabs(expected) > std::numeric_limits<float>::max() * (1 + 0x1p-24);
    return overflow && std::signbit(got) == std::signbit(expected) ? 0.0 : HUGE_VAL;
  }
  if (std::isinf(expected)) return HUGE_VAL;
  if (expected == got) return got != 0 || std::signbit(got) == std::signbit(expected) ? 0.0 : HUGE_VAL;
  int exponent = 0;
  std::frexp(expected, &exponent);
  const int e = std::max(exponent - 1, -126);
  return std::fabs(static_cast<double>(got) - expected) / std::ldexp(1.0, e - 23);
}

}  // namespace tunekit::cpu::ulp
