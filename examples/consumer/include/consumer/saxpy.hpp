// Saxpy (out = alpha * x + y) of consumer_kernels for float and double, with
// three execution paths: serial scalar (the portable reference), serial SIMD
// and parallel SIMD. Two crossovers and a thread count choose between them;
// they are tuning parameters declared in examples/consumer/tuning.toml, from
// which SaxpyTuning and saxpy_binding() are generated.
#pragma once

#include <cstdint>

#include "consumer/tuning_defaults.hpp"
#include "tunekit/core/error.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace consumer {

enum class SaxpyPath { AUTO, SERIAL_SCALAR, SERIAL_SIMD, PARALLEL_SIMD };
const char* to_string(SaxpyPath path) noexcept;

// The tuning key of Saxpy (implementation "openmp_simd") for an element type.
inline tunekit::tuning::KernelTuningKey saxpy_key(tunekit::DataType type) { return saxpy_openmp_simd_key(type); }

class SaxpyKernel {
 public:
  explicit SaxpyKernel(SaxpyTuning config) noexcept : config_(config) {}

  // out = alpha * x + y for float or double tensors of equal size and type;
  // out may be y itself (the in-place saxpy). The path is chosen from the
  // configuration unless forced; `threads` caps the parallel path (0: the
  // configuration's maximum_threads). Every path computes bit-identical
  // results (the library is compiled without floating-point contraction).
  tunekit::Error run(double alpha, const tunekit::tuning::Tensor& x, const tunekit::tuning::Tensor& y,
                     tunekit::tuning::Tensor& out, SaxpyPath path = SaxpyPath::AUTO, int threads = 0) const;

  // The path AUTO takes for `elements`.
  SaxpyPath choose_path(std::int64_t elements) const noexcept;
  const SaxpyTuning& config() const noexcept { return config_; }

 private:
  SaxpyTuning config_;
};

}  // namespace consumer
