// The graphs the CPU pointwise engines run: pointwise operations (one, a
// chain, or any graph of them) that all produce one output shape, their
// tensors float, or bfloat16 for the engines that run it (match_pointwise_of;
// the virtual tensors between the steps may stay float: the steps compute in
// float). Each
// operand is a tensor of that shape or is broadcast along its leading dims
// (a bias [1, N] against [M, N]; a scalar, every dim 1); every tensor is
// densely packed. The graph's outputs are its non-virtual tensors written by
// an operation; virtual tensors are intermediate results.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

// A tensor of the graph as the kernels address it.
struct PointwiseTensor {
  std::int64_t uid = -1;
  bool is_virtual = false;  // an intermediate result: lives in the kernel's scratch
  bool written = false;     // an operation's output
  // Elements after which a broadcast operand repeats: the output's element
  // count for a tensor of the output's shape, 1 for a scalar, N for a row.
  std::int64_t period = 0;
  std::vector<std::int64_t> dims;  // the tensor's (the output's rank)
};

struct PointwiseStep {
  graph::PointwiseMode mode = graph::PointwiseMode::IDENTITY;
  int in0 = -1, in1 = -1, out = -1;  // indices into PointwisePattern::tensors; in1 -1 for unary modes
};

struct PointwisePattern {
  DataType type = DataType::FLOAT;  // of every tensor of the graph's own
  std::vector<std::int64_t> dims;  // the output shape
  std::int64_t elements = 0;
  std::vector<PointwiseTensor> tensors;
  std::vector<PointwiseStep> steps;  // in the graph's (topological) order
  int virtual_count() const noexcept;
  std::string describe() const;  // "3 pointwise operations (add, gelu, mul) over [128, 3072]"
};

// The pattern of `graph` with its tensors in one of `types` (float or
// bfloat16); NOT_SUPPORTED with the reason otherwise.
Result<PointwisePattern> match_pointwise_of(const graph::OperationGraph& graph, std::initializer_list<DataType> types);
// The float pattern: what an engine that runs float only matches.
Result<PointwisePattern> match_pointwise(const graph::OperationGraph& graph);

}  // namespace tunekit::engines
