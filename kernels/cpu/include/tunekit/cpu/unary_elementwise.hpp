// Unary elementwise kernels of tunekit_cpu (tunekit/cpu/unary_op.hpp: Abs,
// Neg, Relu on floating and integer types, Not on bool, Sqrt and the
// transcendentals Exp, Log, Sigmoid, Tanh, Erf on FLOAT, DOUBLE, FLOAT16 and
// BFLOAT16) with three execution paths: serial scalar (the portable
// reference), serial SIMD and parallel SIMD; the SIMD paths take the
// instruction set of active_isa(). FLOAT16 and BFLOAT16 are computed in float
// and rounded to nearest even once. The maximum errors of the transcendentals
// are in tunekit/cpu/unary_accuracy.hpp. Two thresholds choose between the
// paths; they are tuning
// parameters with portable defaults, calibrated per element type. The
// parameters, their defaults and rules are declared in kernels/cpu/tuning.toml;
// UnaryElementwiseTuning and unary_elementwise_binding() are generated from it.
// UnaryElementwiseKernel::for_session(session, op, type) is the kernel a
// program uses: the session's configuration on the session's threads.
#pragma once

#include <cstdint>

#include "tunekit/core/result.hpp"
#include "tunekit/cpu/unary_op.hpp"
#include "tunekit/cpu/tuning_defaults.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::tuning {
class TuningSession;
}  // namespace tunekit::tuning

namespace tunekit::cpu {

inline constexpr const char* kLibrary = kTuningLibrary;
inline constexpr std::uint32_t kElementwiseTuningAbi = kTuningAbi;

enum class ExecutionPath { AUTO, SERIAL_SCALAR, SERIAL_SIMD, PARALLEL_SIMD };

// The team of an elementwise parallel path: `threads` when positive,
// otherwise `maximum_threads` capped at `limit` when positive (a kernel's
// session threads), else at OpenMP's thread limit (omp_get_max_threads: the
// CPUs the process may run on, or OMP_NUM_THREADS). A maximum written for
// larger machines (the portable default is 8) must not oversubscribe a
// smaller one: eight threads on two cores are slower than two, and the idle
// ones spin in the OpenMP pool, slowing every later parallel region of the
// process.
int elementwise_team(std::int64_t maximum_threads, int threads = 0, int limit = 0) noexcept;

// The tuning key of an operation for an element type (kernel to_string(op),
// implementation "openmp_simd").
tuning::KernelTuningKey unary_key(UnaryOp op, DataType type);
// Whether the operation is implemented for the type: exactly the element
// types kernels/cpu/tuning.toml declares for it.
bool supports(UnaryOp op, DataType type) noexcept;

class UnaryElementwiseKernel {
 public:
  // `threads` caps the parallel path's team (0: OpenMP's thread limit).
  UnaryElementwiseKernel(UnaryOp op, UnaryElementwiseTuning config, int threads = 0) noexcept
      : op_(op), config_(config), threads_(threads) {}

  // The kernel of `op` on `type` for a session: the configuration the
  // session resolves for unary_key(op, type), its team capped at the
  // session's effective threads. INVALID_VALUE naming the operation and type
  // when the operation does not support the type; the configuration's error
  // naming the key when a resolved value is rejected.
  static Result<UnaryElementwiseKernel> for_session(const tuning::TuningSession& session, UnaryOp op,
                                                    DataType type);

  // output = op(input) for tensors of one supported type and equal size. The
  // path is chosen from the configuration unless forced; `threads` sets the
  // parallel path's team (0: team()).
  Error run(const tuning::Tensor& input, tuning::Tensor& output, ExecutionPath path = ExecutionPath::AUTO,
            int threads = 0) const;

  // The path AUTO takes for `elements`.
  ExecutionPath choose_path(std::int64_t elements) const noexcept;
  // elementwise_team(config().maximum_threads, threads, threads()); AUTO
  // runs serially when this is 1.
  int team(int threads = 0) const noexcept;
  // The cap of the team; 0 when OpenMP's limit applies.
  int threads() const noexcept { return threads_; }
  const UnaryElementwiseTuning& config() const noexcept { return config_; }

 private:
  UnaryOp op_;
  UnaryElementwiseTuning config_;
  int threads_;
};

}  // namespace tunekit::cpu
