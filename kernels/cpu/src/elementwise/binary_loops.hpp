// The contract between the binary elementwise dispatcher and its loops: one
// contiguous segment out[i] = op(a[i * a_step], b[i * b_step]) for i < n,
// where a step of 0 repeats that operand's first element (a broadcast) and 1
// walks it. The dispatcher reduces every broadcast to such segments; each
// instruction-set file implements the same entry point. Plain integers and
// pointers only: the *_avx512.cpp / *_avx2.cpp files must not share inline
// code with the rest of the library (tunekit/cpu/isa.hpp).
#pragma once

#include <cstdint>

namespace tunekit::cpu::detail {

// Operation codes: the values of BinaryOp.
// Element kinds of the operands; the output is the same kind, or U8 (BOOL)
// for the comparisons.
enum BinaryElementKind : int { KIND_F32, KIND_F64, KIND_F16, KIND_BF16, KIND_I32, KIND_I64, KIND_U8 };

using BinarySegmentFn = void (*)(int op, int kind, const void* a, std::int64_t a_step, const void* b,
                                 std::int64_t b_step, void* out, std::int64_t n) noexcept;

// The serial scalar reference: not vectorised, 16-bit floats converted with
// tunekit::core's conversions.
void binary_segment_scalar(int op, int kind, const void* a, std::int64_t a_step, const void* b, std::int64_t b_step,
                           void* out, std::int64_t n) noexcept;
// Vectorised for the baseline instruction set of the build.
void binary_segment_portable(int op, int kind, const void* a, std::int64_t a_step, const void* b,
                             std::int64_t b_step, void* out, std::int64_t n) noexcept;
#if defined(TUNEKIT_CPU_X86_PATHS)
void binary_segment_avx2(int op, int kind, const void* a, std::int64_t a_step, const void* b, std::int64_t b_step,
                         void* out, std::int64_t n) noexcept;
void binary_segment_avx512(int op, int kind, const void* a, std::int64_t a_step, const void* b,
                           std::int64_t b_step, void* out, std::int64_t n) noexcept;
#endif

}  // namespace tunekit::cpu::detail
