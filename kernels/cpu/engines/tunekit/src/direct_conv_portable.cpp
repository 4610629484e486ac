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
};
constexpr int kPixels = 6;

#include "direct_conv.inl"

}  // namespace

const DirectConvKernels& direct_conv_kernels_portable() noexcept {
  static constexpr DirectConvKernels kernels{kBlockK, kPixels, row, depthwise_row};
  return kernels;
}

}  // namespace tunekit::engines::detail
