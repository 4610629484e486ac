// Internal to tunekit_engines_tunekit: the loops over one contiguous row
// that the normalization and softmax engines run, once per instruction-set
// path (row_kernels.inl compiled by row_kernels_portable.cpp, _avx2.cpp and
// _avx512.cpp); row_kernels() gives the path of cpu::active_isa(), so the
// engines follow TUNEKIT_CPU_ISA and cpu::ScopedIsa like tunekit_cpu's kernels.
#pragma once

#include <cstdint>

#include "tunekit/cpu/isa.hpp"

namespace tunekit::engines::detail {

struct RowMoments {
  float mean, variance;
};

struct RowKernels {
  // The mean, then the mean squared deviation from it (two passes). Both sum
  // x - x[0], so that a large common offset adds no rounding to the mean.
  RowMoments (*two_pass_moments)(const float* x, std::int64_t n);
  // The sums of x - x[0] and of its square in one pass.
  RowMoments (*shifted_moments)(const float* x, std::int64_t n);
  // y = (x - mean) * inv * scale + shift.
  void (*normalize)(const float* x, const float* scale, const float* shift, float mean, float inv, float* y,
                    std::int64_t n);
  // The mean of x squared.
  float (*mean_square)(const float* x, std::int64_t n);
  // y = x * inv * scale.
  void (*scale)(const float* x, const float* scale, float inv, float* y, std::int64_t n);
  // y = exp(x - max x) / sum of them. y may be x. Exponents below -87.3
  // (2^-126) give 0; the row's largest element gives exactly 1 before the
  // division, so the sum is at least 1 and no lane overflows.
  void (*softmax)(const float* x, float* y, std::int64_t n);
};

const RowKernels& row_kernels_portable() noexcept;
const RowKernels& row_kernels_avx2() noexcept;
const RowKernels& row_kernels_avx512() noexcept;

// The path of `isa`; the path of active_isa() when called without.
const RowKernels& row_kernels(cpu::CpuIsa isa) noexcept;
const RowKernels& row_kernels() noexcept;

}  // namespace tunekit::engines::detail
