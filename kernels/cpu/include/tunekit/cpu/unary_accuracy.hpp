// The documented maximum error of each unary operation per element type, in
// units in the last place (ULP) of the type at the exact result, on every
// instruction-set path (the portable path has no fused multiply-add, so it
// is the one that sets most bounds). Measured by
// tests/kernels/unary_accuracy_test.cpp against a double (for float) or long
// double (for double) reference over every float exponent and the special
// values, and by tests/kernels/unary_exhaustive_test.cpp over every float
// (vector paths) and every FLOAT16 and BFLOAT16 value; README "Unary
// kernels" has the measured table beside SLEEF's.
//
// Abs, Neg, Relu, Not and Sqrt are exact (Sqrt is correctly rounded; for
// FLOAT16 and BFLOAT16 its float result rounds once more without error,
// float having more than twice their precision plus two bits). FLOAT16 and
// BFLOAT16 results are the float result rounded to nearest even, within
// half an ULP of the type plus the float error, which is a small fraction of it.
#pragma once

#include "tunekit/core/data_type.hpp"
#include "tunekit/cpu/unary_op.hpp"

namespace tunekit::cpu {

constexpr double max_ulp(UnaryOp op, core::DataType type) noexcept {
  const bool half = type == core::DataType::FLOAT16 || type == core::DataType::BFLOAT16;
  switch (op) {
    case UnaryOp::ABS:
    case UnaryOp::NEG:
    case UnaryOp::RELU:
    case UnaryOp::NOT: return 0.0;
    case UnaryOp::SQRT: return 0.5;
    case UnaryOp::EXP:
    case UnaryOp::LOG:
    case UnaryOp::ERF: return half ? 0.51 : 1.5;
    // Float Tanh: 1.03 over every float on the vector paths, 1.39 on the
    // portable path's sample (no fused multiply-add there), so 2 with margin.
    case UnaryOp::TANH: return half ? 0.51 : type == core::DataType::FLOAT ? 2.0 : 2.5;
    case UnaryOp::SIGMOID: return half ? 0.51 : 2.5;
  }
  return 0.0;
}

}  // namespace tunekit::cpu
