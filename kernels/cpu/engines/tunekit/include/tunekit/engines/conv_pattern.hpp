// The graphs the CPU convolution engines run: one float 2-D conv_fprop
// (X [N, C, H, W], W [K, C, R, S] -> Y [N, K, P, Q], padding, stride and
// dilation, groups: W [K, C / groups, R, S]), optionally followed by a bias added per output
// channel ([1, K, 1, 1] or [K]) and then a relu, each step reading the one
// before it through a virtual tensor. X and Y are both NCHW or both NHWC
// (by their strides, densely packed), W is KCRS, densely packed.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

struct ConvPattern {
  std::int64_t n = 0, c = 0, h = 0, w = 0;  // input
  std::int64_t k = 0, r = 0, s = 0;         // filter
  std::int64_t groups = 1;                  // C and K split into this many independent convolutions
  std::int64_t p = 0, q = 0;                // output spatial dims
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  bool nhwc = false;
  std::int64_t x_uid = -1, w_uid = -1, y_uid = -1, bias_uid = -1;
  bool relu = false;

  bool is_pointwise() const noexcept {  // 1x1, stride 1, no padding: a plain Gemm
    return r == 1 && s == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 && pad_w == 0;
  }
  double multiply_adds() const noexcept {
    return static_cast<double>(n) * k * p * q * c * r * s;
  }
  // "conv 1x64x56x56 * 64x64x3x3 pad 1x1 stride 1x1 dilation 1x1 (nhwc) groups 2 + bias + relu".
  std::string describe() const;
};

// The pattern of `graph`; NOT_SUPPORTED with the reason otherwise.
Result<ConvPattern> match_conv(const graph::OperationGraph& graph);

struct ConvBuffers {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
};
Result<ConvBuffers> find_buffers(const ConvPattern& pattern, const graph::VariantPack& pack);

// Adds the bias per output channel and applies the relu, over all of Y, with
// a team of `threads`.
void apply_conv_epilogue(const ConvPattern& pattern, const float* bias, float* y, int threads);

}  // namespace tunekit::engines
