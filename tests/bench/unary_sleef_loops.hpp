// SLEEF's vector Exp, Tanh and Sigmoid (1 / (1 + exp(-x)) from SLEEF's exp)
// over float arrays, one set per instruction set, each compiled for it
// (unary_sleef_avx512.cpp, unary_sleef_avx2.cpp): the reference that
// bench_elementwise_unary measures tunekit's vectorised transcendentals
// against. Call a set only where the processor runs it.
#pragma once

#include <cstdint>

namespace tunekit::bench {

enum class SleefOp { EXP, TANH, SIGMOID };

void sleef_avx512(SleefOp op, const float* in, float* out, std::int64_t n) noexcept;
void sleef_avx2(SleefOp op, const float* in, float* out, std::int64_t n) noexcept;

}  // namespace tunekit::bench
