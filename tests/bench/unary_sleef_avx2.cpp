// SLEEF's 8-lane float functions (u10: 1.0 ULP) over arrays, for
// bench_elementwise_unary. Compiled for this instruction set only; the
// remainder of an array that fills no vector runs through SLEEF's scalar
// functions.
#include <sleef.h>

#include "unary_sleef_loops.hpp"

namespace tunekit::bench {
namespace {

__m256 apply(SleefOp op, __m256 x) {
  switch (op) {
    case SleefOp::EXP: return Sleef_expf8_u10avx2(x);
    case SleefOp::TANH: return Sleef_tanhf8_u10avx2(x);
    case SleefOp::SIGMOID: {
      const __m256 one = _mm256_set1_ps(1.0f);
      return _mm256_div_ps(one, _mm256_add_ps(one, Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x))));
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

void sleef_avx2(SleefOp op, const float* in, float* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, apply(op, _mm256_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = apply_one(op, in[i]);
}

}  // namespace tunekit::bench
