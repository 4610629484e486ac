// The graphs the CPU RMS-normalization engines run: one float rmsnorm (X
// [N, ...] normalized over every dim but the first, SCALE [1, ...], Y like X;
// optionally INV_RMS [N, 1, ...], the inverse root mean square of each row),
// every tensor densely packed. A row is one of the N slices.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

struct RmsNormPattern {
  std::int64_t rows = 0, width = 0;
  double epsilon = 1e-5;
  std::int64_t x_uid = -1, scale_uid = -1, y_uid = -1;
  std::int64_t inv_rms_uid = -1;  // -1: not requested
  std::string describe() const;   // "rmsnorm 1 x 4096 (epsilon 1e-06)"
};

Result<RmsNormPattern> match_rmsnorm(const graph::OperationGraph& graph);

struct RmsNormBuffers {
  const float* x = nullptr;
  const float* scale = nullptr;
  float* y = nullptr;
  float* inv_rms = nullptr;  // null when not requested
};
Result<RmsNormBuffers> find_buffers(const RmsNormPattern& pattern, const graph::VariantPack& pack);

}  // namespace tunekit::engines
