// The portable SIMD path of the binary kernels: the loops of
// binary_loops.inc vectorised for the build's baseline instruction set.
#include "tunekit/core/half_precision.hpp"
#include "binary_loops.hpp"

#define TK_BINARY_LOOP _Pragma("omp simd")
#define TK_BINARY_ENTRY binary_segment_portable

namespace {

void f16_to_float(const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; ++i) out[i] = tunekit::core::float16_to_float(in[i]);
}
void float_to_f16(const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; ++i) out[i] = tunekit::core::float_to_float16(in[i]);
}

#include "binary_loops.inc"
