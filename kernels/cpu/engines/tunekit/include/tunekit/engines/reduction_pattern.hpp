// The graphs the CPU reduction engines run: one float reduction (sum, mean,
// max, min, prod, norm2) of a densely packed X into a densely packed Y whose
// reduced dims are 1 and form one block of consecutive dims, so X reads as
// [outer, reduced, inner] and Y as [outer, inner].
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

struct ReductionPattern {
  graph::ReductionMode mode = graph::ReductionMode::SUM;
  std::int64_t outer = 1, reduced = 1, inner = 1;
  std::int64_t x_uid = -1, y_uid = -1;
  std::vector<std::int64_t> x_dims, y_dims;
  std::string describe() const;  // "sum of [128, 3072] over 3072 (outer 128, inner 1)"
};

Result<ReductionPattern> match_reduction(const graph::OperationGraph& graph);

}  // namespace tunekit::engines
