// Operations of a graph as plain data: a kind, a name, named input and output
// tensors (ports) and attributes. The rules each kind obeys (required ports,
// attributes, shapes, types) live in one checker per kind, see validate().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/value.hpp"
#include "tunekit/graph/tensor.hpp"

namespace tunekit::graph {

enum class OperationKind {
  MATMUL,
  CONV_FPROP,
  CONV_DGRAD,
  CONV_WGRAD,
  POINTWISE,
  REDUCTION,
  BATCHNORM_TRAINING,
  BATCHNORM_INFERENCE,
  BATCHNORM_BACKWARD,
  LAYERNORM,
  RMSNORM,
  RMSNORM_BACKWARD,
  SDPA_FWD,
  SDPA_BWD,
  RESAMPLE_FWD,
  SOFTMAX,
};

// Stable names ("matmul", "conv_fprop", ..., "resample_fwd", "softmax"), as written in
// graph files and override files.
std::string_view to_string(OperationKind kind) noexcept;
std::optional<OperationKind> parse_operation_kind(std::string_view name) noexcept;
std::vector<OperationKind> all_operation_kinds();

// Pointwise modes; the arity says how many inputs (IN_0, IN_1) the mode takes.
enum class PointwiseMode {
  IDENTITY, NEG, ABS, EXP, LOG, SQRT, RELU, SIGMOID, TANH, GELU,  // unary
  ADD, SUB, MUL, DIV, MAX, MIN,                                   // binary
};
std::string_view to_string(PointwiseMode mode) noexcept;  // "identity", ..., "min"
std::optional<PointwiseMode> parse_pointwise_mode(std::string_view name) noexcept;
int arity(PointwiseMode mode) noexcept;  // 1 or 2
// The operation's definition in double precision (y unused by unary modes;
// GELU is x/2 (1 + erf(x / sqrt 2))): what the reference engines compute.
double apply_pointwise(PointwiseMode mode, double x, double y = 0.0) noexcept;

enum class ReductionMode { SUM, MEAN, MAX, MIN, PROD, NORM2 };
std::string_view to_string(ReductionMode mode) noexcept;  // "sum", ...
std::optional<ReductionMode> parse_reduction_mode(std::string_view name) noexcept;

enum class ResampleMode { MAXPOOL, AVGPOOL_INCLUDE_PADDING, AVGPOOL_EXCLUDE_PADDING, NEAREST, BILINEAR };
std::string_view to_string(ResampleMode mode) noexcept;  // "maxpool", ...
std::optional<ResampleMode> parse_resample_mode(std::string_view name) noexcept;

// Port and attribute names by kind (ports are upper case, attributes lower case):
//   matmul:              A, B -> C
//   conv_fprop:          X, W -> Y          lists padding, stride, dilation
//   conv_dgrad:          DY, W -> DX        (same lists)
//   conv_wgrad:          X, DY -> DW        (same lists)
//   pointwise:           IN_0[, IN_1] -> OUT_0            string mode
//   reduction:           X -> Y                            string mode
//   batchnorm_training:  X, SCALE, BIAS -> Y, MEAN, INV_VARIANCE        double epsilon
//   batchnorm_inference: X, MEAN, INV_VARIANCE, SCALE, BIAS -> Y
//   batchnorm_backward:  DY, X, SCALE, MEAN, INV_VARIANCE -> DX, DSCALE, DBIAS
//   layernorm:           X, SCALE, BIAS -> Y[, MEAN, INV_VARIANCE]      double epsilon
//   rmsnorm:             X, SCALE -> Y[, INV_RMS]                       double epsilon
//   rmsnorm_backward:    DY, X, SCALE, INV_RMS -> DX, DSCALE
//   sdpa_fwd:            Q, K, V -> O[, STATS]              double scale, bool causal
//   sdpa_bwd:            Q, K, V, O, DO, STATS -> DQ, DK, DV (same attributes)
//   resample_fwd:        X -> Y   string mode; lists window, stride, padding
//   softmax:             X -> Y   int axis (default the last dim; negative counts from the end)
struct Operation {
  OperationKind kind = OperationKind::POINTWISE;
  std::string name;
  std::map<std::string, Tensor> inputs;
  std::map<std::string, Tensor> outputs;
  std::map<std::string, Value> attributes;                      // scalars
  std::map<std::string, std::vector<std::int64_t>> list_attributes;  // integer lists

  // Typed attribute access; nullopt when absent or of another type.
  std::optional<std::int64_t> int_attribute(const std::string& key) const;
  std::optional<double> double_attribute(const std::string& key) const;  // ints convert
  std::optional<bool> bool_attribute(const std::string& key) const;
  std::optional<std::string> string_attribute(const std::string& key) const;
  const std::vector<std::int64_t>* list_attribute(const std::string& key) const;

  Tensor input(const std::string& port) const;   // null when absent
  Tensor output(const std::string& port) const;  // null when absent

  // "matmul 'mm0'" (or "matmul #2" for an unnamed operation at that index).
  std::string describe(std::size_t index) const;
};

// The dim a softmax normalizes along: its axis attribute made non-negative,
// the last dim without one (0 for an operation without an X).
std::int64_t softmax_axis(const Operation& softmax);

// Checks one operation against the rules of its kind: required and allowed
// ports and attributes, ranks, dims, strides and element types. Tensors must
// already carry data types and strides (Graph::validate fills defaults).
// Messages name the operation, the port and the tensor.
Error validate_operation(const Operation& operation, std::size_t index);

}  // namespace tunekit::graph
