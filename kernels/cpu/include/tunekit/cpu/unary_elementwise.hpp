// Unary elementwise kernels of tunekit_cpu (Abs for float, double and int32;
// Not for bool) with three execution paths: serial scalar, serial SIMD and
// parallel SIMD. Two thresholds choose between them; they are tuning
// parameters with portable defaults, calibrated per element type. The
// parameters, their defaults and rules are declared in kernels/cpu/tuning.toml;
// UnaryElementwiseTuning and unary_elementwise_binding() are generated from it.
#pragma once

#include <cstdint>

#include "tunekit/cpu/tuning_defaults.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::cpu {

inline constexpr const char* kLibrary = kTuningLibrary;
inline constexpr std::uint32_t kElementwiseTuningAbi = kTuningAbi;

enum class UnaryOp { ABS, NOT };
enum class ExecutionPath { AUTO, SERIAL_SCALAR, SERIAL_SIMD, PARALLEL_SIMD };

// The tuning key of an operation for an element type ("Abs"/"Not",
// implementation "openmp_simd").
tuning::KernelTuningKey unary_key(UnaryOp op, DataType type);
// Whether the operation is implemented for the type (the element types the
// spec declares: Abs float, double, int32; Not bool).
bool supports(UnaryOp op, DataType type) noexcept;

class UnaryElementwiseKernel {
 public:
  UnaryElementwiseKernel(UnaryOp op, UnaryElementwiseTuning config) noexcept : op_(op), config_(config) {}

  // output = op(input) for tensors of one supported type and equal size. The
  // path is chosen from the configuration unless forced; `threads` caps the
  // parallel path (0: the configuration's maximum_threads).
  Error run(const tuning::Tensor& input, tuning::Tensor& output, ExecutionPath path = ExecutionPath::AUTO,
            int threads = 0) const;

  // The path AUTO takes for `elements`.
  ExecutionPath choose_path(std::int64_t elements) const noexcept;
  const UnaryElementwiseTuning& config() const noexcept { return config_; }

 private:
  UnaryOp op_;
  UnaryElementwiseTuning config_;
};

}  // namespace tunekit::cpu
