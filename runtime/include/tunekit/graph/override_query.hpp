// What an operation graph looks like to an override file. The entry is keyed
// by the graph's core operation: the one of highest priority (convolution
// 70, sdpa 60, matmul 50, batchnorm 40, layer/rms norm and softmax 30,
// reduction and resample 20, pointwise 10; the first of equals), named by its kind
// ("conv_fprop", "matmul", ...). Its tensors are named by port ("X", "W",
// "Y") in a fixed order per kind, which is also the position version-1 files
// use. Criteria are integer-encoded modes that tell apart graphs sharing an
// operation and tensors: pointwise_mode, reduction_mode, resample_mode (the
// enum's declaration order), norm_fwd_phase (0 inference, 1 training),
// causal_mask (0 or 1) and softmax_axis (the dim, counted from the first),
// and data_type when the operation's first input is not float (double 2,
// float16 3, bfloat16 4, int8 5, uint8 6, int32 7, int64 8, bool 9; float
// graphs carry none, so their entries stay those any v2 reader writes), so
// that a bfloat16 matmul and a float one of the same dims keep an entry each;
// the lookup reads an entry or a query without data_type as float (1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::graph {

// The data_type criterion (see above): its name, and the fixed code of a
// type (written to files: not the enum's order).
inline constexpr std::string_view kDataTypeCriterion = "data_type";
std::int64_t data_type_criterion_code(DataType type) noexcept;

struct OverrideQueryTensor {
  std::string tensor_id;
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> strides;
  // An output of the operation. The writer keys entries by the inputs only
  // (A and B for matmul, X and W for conv_fprop); a lookup accepts entries
  // that also name outputs.
  bool output = false;
};

struct OverrideQuery {
  std::string op;
  std::map<std::string, std::int64_t> criteria;
  std::vector<OverrideQueryTensor> tensors;  // in the kind's port order
};

int core_operation_priority(OperationKind kind) noexcept;
// Index of the core operation; nullopt for a graph without operations.
std::optional<std::size_t> core_operation_index(const std::vector<Operation>& operations);
// The ports of kind in their fixed order (inputs, then outputs).
const std::vector<std::string>& override_port_order(OperationKind kind);

OverrideQuery make_override_query(const Operation& operation);
// NOT_SUPPORTED when the graph has no operation.
Result<OverrideQuery> make_override_query(const OperationGraph& graph);

}  // namespace tunekit::graph
