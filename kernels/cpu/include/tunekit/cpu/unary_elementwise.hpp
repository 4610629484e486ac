// Unary elementwise kernels of tunekit_cpu (Abs for float, double and int32;
// Not for bool) with three execution paths: serial scalar, serial SIMD and
// parallel SIMD. Two thresholds choose between them; they are tuning
// parameters with portable defaults, calibrated per element type.
#pragma once

#include <cstdint>

#include "tunekit/tuning/random_tensor.hpp"
#include "tunekit/tuning/tuning_binding.hpp"

namespace tunekit::cpu {

inline constexpr const char* kLibrary = "tunekit_cpu";
inline constexpr std::uint32_t kElementwiseTuningAbi = 1;

struct UnaryElementwiseTuning {
  std::int64_t simd_min_elements = 32;              // algorithm.simd_min_elements
  std::int64_t parallel_minimum_elements = 1 << 20;  // parallel.minimum_elements
  std::int64_t maximum_threads = 8;                  // parallel.maximum_threads
};

const tuning::TuningBinding<UnaryElementwiseTuning>& unary_elementwise_binding();

enum class UnaryOp { ABS, NOT };
enum class ExecutionPath { AUTO, SERIAL_SCALAR, SERIAL_SIMD, PARALLEL_SIMD };

// The tuning key of an operation for an element type ("Abs"/"Not",
// implementation "openmp_simd").
tuning::KernelTuningKey unary_key(UnaryOp op, DataType type);
// Whether the operation is implemented for the type (Abs: float, double,
// int32; Not: bool).
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
