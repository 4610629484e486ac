// The serial scalar reference of the binary kernels: the loops of
// binary_loops.inc compiled without vectorisation, and 16-bit floats
// converted by tunekit::core, so that calibration and tests compare every
// other path against plain portable code.
#include "tunekit/core/half_precision.hpp"
#include "binary_loops.hpp"

#if defined(__clang__)
#define TK_BINARY_LOOP _Pragma("clang loop vectorize(disable)")
#else
#pragma GCC optimize("no-tree-vectorize")
#define TK_BINARY_LOOP
#endif
#define TK_BINARY_ENTRY binary_segment_scalar

namespace {

void f16_to_float(const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; ++i) out[i] = tunekit::core::float16_to_float(in[i]);
}
void float_to_f16(const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; ++i) out[i] = tunekit::core::float_to_float16(in[i]);
}

#include "binary_loops.inc"
