// The row loops of row_kernels.inl compiled for the portable path (the
// baseline instruction set, SSE2 on x86-64), with 8 partial sums: two vector
// registers' worth, so that consecutive additions do not wait on each other.
#include "row_kernels.hpp"

namespace tunekit::engines::detail {
namespace {
constexpr int kLanes = 8;
#include "row_kernels.inl"
}  // namespace

const RowKernels& row_kernels_portable() noexcept {
  static constexpr RowKernels kernels{two_pass_moments, shifted_moments, normalize, mean_square, scale, softmax};
  return kernels;
}

}  // namespace tunekit::engines::detail
