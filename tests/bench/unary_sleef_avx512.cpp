// SLEEF's 16-lane float functions (u10: 1.0 ULP) over arrays, for
// bench_elementwise_unary. Compiled for this instruction set only; the
// remainder of an array that fills no vector runs through SLEEF's scalar
// functions.
#include <sleef.h>

#include "unary_sleef_loops.hpp"

namespace tunekit::bench {
namespace {

__m512 apply(SleefOp op, __m512 x) {
  switch (op) {
    case SleefOp::EXP: return Sleef_expf16_u10avx512f(x);
    case SleefOp::TANH: return Sleef_tanhf16_u10avx512f(x);
    case SleefOp::SIGMOID: {
      const __m512 one = _mm512_set1_ps(1.0f);
      return _mm512_div_ps(one, _mm512_add_ps(one, Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_setzero_ps(), x))));
    }
  }
  return x;
}

float apply_one(SleefOp op, float x) {
  switch (op) {
    case SleefOp::EXP: return Sleef_expf_u10(x);
    case SleefOp::TANH: return Sleef_tanhf_u10(x);
    case SleefOp::SIGMOID: return 1.0f / (1.0f + Sleef_expf_u10(-x));
  }
  return x;
}

}  // namespace

void sleef_avx512(SleefOp op, const float* in, float* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, apply(op, _mm512_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = apply_one(op, in[i]);
}

}  // namespace tunekit::bench
