// The row loops compiled for the avx2 path (row_kernels.inl), with
// 16 partial sums: two vector registers' worth, so that consecutive
// additions do not wait on each other.
#include "row_kernels.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
namespace tunekit::engines::detail {
namespace {
constexpr int kLanes = 16;
#include "row_kernels.inl"
}  // namespace

const RowKernels& row_kernels_avx2() noexcept {
  static constexpr RowKernels kernels{two_pass_moments, shifted_moments, normalize, mean_square, scale, softmax};
  return kernels;
}

}  // namespace tunekit::engines::detail
#endif
