// Internal: the float loops behind the reference engines, over strided
// views so that any layout the graph describes is honoured.
#pragma once

#include <cstdint>
#include <vector>

#include "tunekit/graph/operation.hpp"

namespace tunekit::cpu::reference {

struct View {
  float* data = nullptr;
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> strides;
};

View view_of(const graph::TensorAttributes& tensor, void* data);

// C = A x B for rank-2 views; tile 0 runs the plain triple loop, otherwise
// tile x tile blocks of C accumulate over tile-wide slices of K.
void matmul(const View& a, const View& b, const View& c, std::int64_t tile);

// out = mode(in0[, in1]); inputs broadcast where a dim is 1 (or missing on the left).
void pointwise(graph::PointwiseMode mode, const View& in0, const View* in1, const View& out);

}  // namespace tunekit::cpu::reference
