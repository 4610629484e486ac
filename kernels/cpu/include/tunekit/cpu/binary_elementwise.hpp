// Binary elementwise kernels of tunekit_cpu: Add, Sub, Mul, Div, Max, Min,
// Pow (arithmetic), And, Or, Xor (bitwise on integers, logical on BOOL) and
// Equal, Less, Greater (comparisons, BOOL output), with NumPy broadcasting of
// the two operand shapes. Three execution paths, serial scalar (the portable
// reference), serial SIMD and parallel SIMD, are chosen by two thresholds
// declared in kernels/cpu/tuning.toml (BinaryElementwiseTuning, generated).
//
// Semantics:
// - FLOAT16 and BFLOAT16 are computed in float and rounded to nearest even.
// - Integer Add, Sub and Mul wrap around (two's complement), never overflow.
// - Max and Min propagate NaN: if either operand is NaN the result is NaN (as
//   numpy.maximum). Of two equal operands (+0 and -0) the second is returned.
// - Pow is std::pow per element in float (double for DOUBLE) on every path;
//   a vectorised exp/log replaces it later.
// - Comparisons follow IEEE: any comparison with NaN is false.
// - BOOL operands: any non-zero byte is true; BOOL outputs are 0 or 1.
//
// BinaryElementwiseKernel::for_session(session, op, type) is the kernel a
// program uses: the session's configuration on the session's threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tunekit/core/error.hpp"
#include "tunekit/cpu/tuning_defaults.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::cpu {

enum class BinaryOp { ADD, SUB, MUL, DIV, MAX, MIN, POW, AND, OR, XOR, EQUAL, LESS, GREATER };

inline constexpr BinaryOp kAllBinaryOps[] = {BinaryOp::ADD,   BinaryOp::SUB, BinaryOp::MUL, BinaryOp::DIV,
                                             BinaryOp::MAX,   BinaryOp::MIN, BinaryOp::POW, BinaryOp::AND,
                                             BinaryOp::OR,    BinaryOp::XOR, BinaryOp::EQUAL, BinaryOp::LESS,
                                             BinaryOp::GREATER};

// The kernel name of the tuning key: "Add", "Equal", ...
std::string_view to_string(BinaryOp op) noexcept;
std::optional<BinaryOp> parse_binary_op(std::string_view kernel) noexcept;

// The tuning key of an operation for its operand type (implementation
// "openmp_simd"); the operand types each operation supports are those
// tuning.toml declares.
tuning::KernelTuningKey binary_key(BinaryOp op, DataType operand_type);
bool supports(BinaryOp op, DataType operand_type) noexcept;
// BOOL for comparisons, the operand type otherwise.
DataType output_type(BinaryOp op, DataType operand_type) noexcept;

class BinaryElementwiseKernel {
 public:
  // `threads` caps the parallel path's team (0: OpenMP's thread limit).
  BinaryElementwiseKernel(BinaryOp op, BinaryElementwiseTuning config, int threads = 0) noexcept
      : op_(op), config_(config), threads_(threads) {}

  // The kernel of `op` on operands of `operand_type` for a session: the
  // configuration the session resolves for binary_key(op, operand_type), its
  // team capped at the session's effective threads. INVALID_VALUE naming the
  // operation and type when the operation does not support the type; the
  // configuration's error naming the key when a resolved value is rejected.
  static Result<BinaryElementwiseKernel> for_session(const tuning::TuningSession& session, BinaryOp op,
                                                     DataType operand_type);

  // output = op(a, b) with a and b broadcast to output's shape (NumPy rules:
  // shapes aligned at the right, each pair of dimensions equal or one of
  // them 1). INVALID_VALUE naming the shapes when they do not broadcast, when
  // output's shape is not their broadcast, or for an unsupported type. The
  // path is chosen from the output size unless forced; `threads` sets the
  // parallel path's team (0: team()). Every path gives
  // the same bits, but Pow: the SIMD paths compute float Pow (and the 16-bit
  // types' through it) in double on AVX-512 and AVX2 (0.51 ULP), powf on the
  // portable path (1 ULP), and double Pow with log x in double-double on AVX-512 and AVX2
  // (0.52 ULP), pow on the portable path, so paths may differ by one ulp;
  // serial and parallel SIMD agree.
  Error run(const tuning::Tensor& a, const tuning::Tensor& b, tuning::Tensor& output,
            ExecutionPath path = ExecutionPath::AUTO, int threads = 0) const;

  ExecutionPath choose_path(std::int64_t output_elements) const noexcept;
  // elementwise_team(config().maximum_threads, threads, threads()); AUTO
  // runs serially when this is 1.
  int team(int threads = 0) const noexcept;
  // The cap of the team; 0 when OpenMP's limit applies.
  int threads() const noexcept { return threads_; }
  const BinaryElementwiseTuning& config() const noexcept { return config_; }

 private:
  BinaryOp op_;
  BinaryElementwiseTuning config_;
  int threads_;
};

}  // namespace tunekit::cpu
