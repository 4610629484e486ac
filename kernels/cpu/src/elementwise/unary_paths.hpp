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

}  // namespace tunekit::cpu::detail
