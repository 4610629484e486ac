// The entry points of the unary kernels' instruction-set paths, each over
// raw arrays of one element type (FLOAT16 and BFLOAT16 as 16-bit patterns,
// BOOL as bytes). The caller has checked that the operation supports the
// type. unary_scalar is the portable code without vectorisation (the serial
// reference); the others are serial SIMD loops. The AVX paths exist only in
// builds with TUNEKIT_CPU_X86_PATHS and run only where can_run() says so.
#pragma once

#include <cstdint>

#include "tunekit/core/data_type.hpp"
#include "tunekit/cpu/unary_op.hpp"

namespace tunekit::cpu::detail {

void unary_scalar(UnaryOp op, core::DataType type, const void* in, void* out, std::int64_t n) noexcept;
void unary_portable(UnaryOp op, core::DataType type, const void* in, void* out, std::int64_t n) noexcept;
void unary_avx2(UnaryOp op, core::DataType type, const void* in, void* out, std::int64_t n) noexcept;
void unary_avx512(UnaryOp op, core::DataType type, const void* in, void* out, std::int64_t n) noexcept;

// out[i] = gelu(in[i]) = in[i] / 2 * (1 + erf(in[i] / sqrt(2))) for float,
// as x erfc(-x / sqrt 2) / 2 (GeluFloatOp of unary_math.inl).
void gelu_float_portable(const float* in, float* out, std::int64_t n) noexcept;
void gelu_float_avx2(const float* in, float* out, std::int64_t n) noexcept;
void gelu_float_avx512(const float* in, float* out, std::int64_t n) noexcept;

// out[i] = pow(a[i], b[i]) for float (a step of 0 repeats the operand's
// first element), in double arithmetic rounded once to float
// (pow_lanes.inl): lanes with a nonzero finite base and a finite exponent
// take the vector path (a negative base through pow(|x|, y) and the sign
// rule), every other lane (zero or infinite bases, infinite or NaN
// exponents) the C library's powf. For the binary kernels' Pow.
void pow_float_avx512(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                      std::int64_t n) noexcept;
void pow_float_avx2(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                    std::int64_t n) noexcept;

// out[i] = pow(a[i], b[i]) for double (steps as above): exp of y log |x|
// with log |x| as a double-double and the sign rule (pow_lanes.inl); lanes
// with a zero or infinite base, an exponent that is not finite, or
// |y log |x|| of 708 or more (overflow, subnormal results) take the C
// library's pow.
void pow_double_avx512(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                       std::int64_t n) noexcept;
void pow_double_avx2(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                     std::int64_t n) noexcept;

// FLOAT16 or BFLOAT16 (`type`, 16-bit patterns) to float, exactly, and float
// to `type` with the unary kernels' rounding (nearest even, NaN stays NaN):
// the conversions of the widening Gemm, one set per instruction-set path.
void widen_halves_portable(core::DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept;
void narrow_halves_portable(core::DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept;
void widen_halves_avx2(core::DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept;
void narrow_halves_avx2(core::DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept;
void widen_halves_avx512(core::DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept;
void narrow_halves_avx512(core::DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept;

}  // namespace tunekit::cpu::detail
