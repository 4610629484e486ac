// The graphs the CPU layer-normalization engines run: one float layernorm
// (X [N, ...] normalized over every dim but the first, SCALE and BIAS
// [1, ...], Y like X; optionally the statistics MEAN and INV_VARIANCE
// [N, 1, ...]), every tensor densely packed. A row is one of the N slices.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

struct LayerNormPattern {
  std::int64_t rows = 0, width = 0;
  double epsilon = 1e-5;
  std::int64_t x_uid = -1, scale_uid = -1, bias_uid = -1, y_uid = -1;
  std::int64_t mean_uid = -1, inv_variance_uid = -1;  // -1: not requested
  bool has_statistics() const noexcept { return mean_uid >= 0 || inv_variance_uid >= 0; }
  std::string describe() const;  // "layernorm 128 x 768 (epsilon 1e-05)"
};

Result<LayerNormPattern> match_layernorm(const graph::OperationGraph& graph);

struct LayerNormBuffers {
  const float* x = nullptr;
  const float* scale = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  float* mean = nullptr;          // null when not requested
  float* inv_variance = nullptr;  // null when not requested
};
Result<LayerNormBuffers> find_buffers(const LayerNormPattern& pattern, const graph::VariantPack& pack);

}  // namespace tunekit::engines
