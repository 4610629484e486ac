// The oneDNN CPU engine:
//   CPU_MATMUL_ONEDNN (400): a dnnl::matmul primitive with the bias as its
//     bias argument and the activation as an eltwise post-op (relu,
//     gelu_erf, logistic, tanh), so oneDNN fuses the epilogue itself. Knobs:
//     threads (1 .. hardware threads, capped by the device's effective
//     threads; the OpenMP team of the run, oneDNN sharing tunekit's libgomp)
//     and implementation (0-7: the position in oneDNN's list of distinct
//     implementations for the shape, primitive_desc::next_impl(); 0 is
//     oneDNN's own first choice, a position past the end does not compile).
//   CPU_CONV_ONEDNN (410): a convolution_forward primitive (conv_pattern.hpp)
//     on the graph's NCHW or NHWC tensors, the bias as its bias and the relu
//     as a post-op; the filter is reordered into the layout the primitive
//     prefers at each execution, into the workspace. Knobs: threads,
//     algorithm (auto, direct, winograd) and implementation (as above).
//   CPU_LAYERNORM_ONEDNN (430): a layer_normalization_forward primitive
//     (layernorm_pattern.hpp) with oneDNN applying the scale and shift, for
//     graphs that request no statistics. Knob: threads.
//   CPU_REDUCTION_ONEDNN (440): a reduction primitive (reduction_pattern.hpp;
//     NORM2 as norm_lp_sum with p = 2). Knob: threads.
//   CPU_RMSNORM_ONEDNN (435): an rmsnorm (rmsnorm_pattern.hpp) as three
//     primitives, oneDNN 2.6 having no RMS normalization: an eltwise square
//     of X into the workspace, a reduction to each row's mean (the inverse
//     root mean square by eltwise post-ops) and a binary multiplication by it
//     with SCALE as a post-op. INV_RMS is written when the graph asks, else
//     kept in the workspace. Knob: threads.
//   CPU_SOFTMAX_ONEDNN (450): a softmax_v2_forward primitive, accurate
//     algorithm, along the graph's axis (softmax_pattern.hpp). Knob: threads.
//   CPU_POINTWISE_ONEDNN (460): a chain of pointwise operations
//     (pointwise_pattern.hpp; each operation reads the previous result) as
//     one binary or eltwise primitive with the later operations as eltwise
//     and binary post-ops. Knob: threads.
// The primitive is created when the plan compiles and its scratchpad is the
// plan's workspace, so an execution is a steady-state one and compile time
// stays out of the measured time. The catalogue version names oneDNN's
// version and the instruction set it runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kMatmulOnednnEngine = 400;
inline constexpr std::int64_t kConvOnednnEngine = 410;
inline constexpr std::int64_t kLayerNormOnednnEngine = 430;
inline constexpr std::int64_t kReductionOnednnEngine = 440;
inline constexpr std::int64_t kRmsNormOnednnEngine = 435;
inline constexpr std::int64_t kSoftmaxOnednnEngine = 450;
inline constexpr std::int64_t kPointwiseOnednnEngine = 460;

std::string onednn_version();  // "2.6.3"
std::string onednn_isa();      // the instruction set oneDNN dispatches to, "avx512_core", ...
// The implementations oneDNN offers, in order, for a matmul of this pattern
// (what the implementation knob counts): "brg:avx512_core", "gemm:jit",
// "ref:any", ...
std::vector<std::string> onednn_matmul_implementations(const MatmulPattern& pattern);
// The same for a convolution with `algorithm` ("auto", "direct", "winograd";
// empty when oneDNN has none for it).
std::vector<std::string> onednn_conv_implementations(const ConvPattern& pattern, const std::string& algorithm);

class OnednnEngineProvider final : public graph::EngineProvider {
 public:
  OnednnEngineProvider();
  std::string name() const override { return "onednn"; }
  // "onednn-2.6.3-avx512_core-engines-2".
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_onednn_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
