// The direct convolution's tiles for the portable path: 6 pixels x 8 output
// channels in the compiler's generic 4-lane vectors (SSE2 registers on
// x86-64: 12 accumulators, two filter vectors and a broadcast).
#include <cstring>

#include "direct_conv_kernels.hpp"

namespace tunekit::engines::detail {
namespace {

struct S {
  using T = float;
  using V = float __attribute__((vector_size(16)));
  static constexpr int kLanes = 4;
  static V zero() { return V{}; }
  static V load(const T* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static V set1(T x) { return V{x, x, x, x}; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V add(V a, V b) { return a + b; }
  static V max(V a, V b) { return a > b ? a : b; }
  static void store(T* p, V v) { std::memcpy(p, &v, sizeof v); }
  static V interleave_lo(V a, V b) { return __builtin_shufflevector(a, b, 0, 4, 1, 5); }
  static V interleave_hi(V a, V b) { return __builtin_shufflevector(a, b, 2, 6, 3, 7); }
  static V even(V a, V b) { return __builtin_shufflevector(a, b, 0, 2, 4, 6); }
  static V odd(V a, V b) { return __builtin_shufflevector(a, b, 1, 3, 5, 7); }
};
constexpr int kPixels = 6;
constexpr int kGroupedAccumulators = 12;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_portable() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row, S::kLanes, {grouped_row<1>, grouped_row<2>, grouped_row<4>}, channels_to_lanes};
  return kernels;
}

}  // namespace tunekit::engines::detail
