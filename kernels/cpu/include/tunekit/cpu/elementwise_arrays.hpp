// The elementwise family on raw float arrays, serially, on the instruction
// set of active_isa(): for kernels that apply operations to pieces of their
// own (a block of a pointwise chain). No path choice, no threads, no
// tuning: the caller has made those decisions. Results are those of the
// kernels' serial SIMD path (UnaryElementwiseKernel, BinaryElementwiseKernel).
#pragma once

#include <cstdint>

#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/unary_op.hpp"

namespace tunekit::cpu {

// out[i] = op(in[i]) for i < n; in may be out. `op` must support FLOAT
// (every UnaryOp but NOT); false, with nothing written, otherwise.
bool unary_float_array(UnaryOp op, const float* in, float* out, std::int64_t n) noexcept;

// out[i] = in[i] / 2 * (1 + erf(in[i] / sqrt(2))) (GELU) for i < n, in one
// pass; in may be out. Computed as x erfc(-x / sqrt 2) / 2 from one erfc
// formula for every lane (unary_math.inl), within 10 ULP of the exact value
// for results that are normal floats, the negative side included (where
// 1 + erf cancels), x beyond 20 and -0 below -20.
void gelu_float_array(const float* in, float* out, std::int64_t n) noexcept;

// out[i] = op(a[i * a_step], b[i * b_step]) for i < n, a step of 0 repeating
// that operand's first element; an operand may be out. `op` must be an
// arithmetic operation (ADD, SUB, MUL, DIV, MAX, MIN, POW); false, with
// nothing written, otherwise.
bool binary_float_array(BinaryOp op, const float* a, std::int64_t a_step, const float* b, std::int64_t b_step,
                        float* out, std::int64_t n) noexcept;

// out[i] = in[i], FLOAT16 or BFLOAT16 bit patterns widened to float
// (exact); false, with nothing written, for any other type.
bool widen_to_float_array(DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept;
// out[i] = in[i] rounded to FLOAT16 or BFLOAT16 (nearest even, NaN stays
// NaN); false, with nothing written, for any other type.
bool narrow_float_array(DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept;

}  // namespace tunekit::cpu
