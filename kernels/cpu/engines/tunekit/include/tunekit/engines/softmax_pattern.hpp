// The graphs the CPU softmax engines run: one float softmax of X into Y, both
// densely packed, seen as [outer, width, inner] around the normalized dim
// (inner is 1 when it is the last one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

struct SoftmaxPattern {
  std::int64_t outer = 1, width = 0, inner = 1;
  std::vector<std::int64_t> dims;  // X's
  std::int64_t axis = 0;           // non-negative
  std::int64_t x_uid = -1, y_uid = -1;
  std::string describe() const;  // "softmax of [12, 128, 128] along dim 2"
};

Result<SoftmaxPattern> match_softmax(const graph::OperationGraph& graph);

}  // namespace tunekit::engines
