// tunekit's own CPU engines, on tunekit_cpu's kernels:
//   CPU_MATMUL_TUNEKIT (100): the packed Gemm of the session's configuration
//     over all of C with the engine's threads, then the epilogue in a second
//     parallel pass. Knobs: threads (1 .. this machine's hardware threads;
//     capped by the device's effective threads), tile_m and tile_k (0: the
//     session's resolved value).
//   CPU_MATMUL_TUNEKIT_ROWSPLIT (101): C's rows split between the threads,
//     each running the serial Gemm on its rows and the epilogue on them while
//     they are in its cache (no barrier, but every thread packs B itself).
//     Knob: threads.
// Both match the pattern of matmul_pattern.hpp and take no workspace (the
// epilogue runs in place, the Gemm's packing buffers are its own per-thread
// ones).
//   CPU_CONV_TUNEKIT_IM2COL (110): conv_fprop (conv_pattern.hpp), each
//     image's patches unrolled into the workspace (C*R*S x P*Q floats), then
//     one Gemm against the filter. Knob: threads.
//   CPU_CONV_TUNEKIT_1X1 (111): a 1x1 conv_fprop with stride 1 and no
//     padding as the Gemm itself, no workspace. Knob: threads.
//   CPU_CONV_TUNEKIT_DIRECT (112): any conv_fprop of the pattern summed
//     straight from the input in register tiles of pixels x output channels
//     (the bias and relu applied on them). Workspace: the filter packed in
//     blocks of the tile's channels, plus a padded NHWC copy of X when X is
//     NCHW or the convolution pads. Knob: threads.
//   CPU_LAYERNORM_TUNEKIT (120): a layernorm (layernorm_pattern.hpp), rows
//     split between the threads, the statistics in two passes (mean, then
//     squared deviations). Knob: threads. No workspace.
//   CPU_LAYERNORM_TUNEKIT_ONEPASS (121): the same with the statistics in one
//     pass of sums shifted by the row's first element. Knob: threads.
//   CPU_REDUCTION_TUNEKIT (130): a reduction (reduction_pattern.hpp), the
//     outputs split between the threads. Knob: threads. No workspace.
//   CPU_REDUCTION_TUNEKIT_SPLIT (131): the reduced dim split between the
//     threads into partials (threads x outputs floats of workspace), combined
//     in one pass. Knob: threads.
//   CPU_RMSNORM_TUNEKIT (140): an rmsnorm (rmsnorm_pattern.hpp), rows split
//     between the threads, the mean of the squares then the scaling, INV_RMS
//     written when the graph asks. Knob: threads. No workspace.
//   CPU_SOFTMAX_TUNEKIT (150): a softmax along the last dim
//     (softmax_pattern.hpp), rows split between the threads; per row the
//     maximum, then the exponentials and their sum, then the division.
//     Knob: threads. No workspace.
//   CPU_POINTWISE_TUNEKIT (160): pointwise operations (pointwise_pattern.hpp:
//     one, a chain or a graph of them, operands of the output's shape or
//     broadcast along their leading dims) applied block by block on
//     tunekit_cpu's elementwise kernels, so a chain passes over memory once.
//     Knob: threads. Workspace: a block of 2048 floats per intermediate
//     result and thread (the knob's thread count).
// The normalization and softmax engines run their rows on the instruction
// set tunekit_cpu's kernels take (tunekit/cpu/isa.hpp, TUNEKIT_CPU_ISA).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kMatmulTunekitEngine = 100;
inline constexpr std::int64_t kMatmulTunekitRowSplitEngine = 101;
inline constexpr std::int64_t kConvTunekitIm2colEngine = 110;
inline constexpr std::int64_t kConvTunekit1x1Engine = 111;
inline constexpr std::int64_t kConvTunekitDirectEngine = 112;
inline constexpr std::int64_t kLayerNormTunekitEngine = 120;
inline constexpr std::int64_t kLayerNormTunekitOnePassEngine = 121;
inline constexpr std::int64_t kReductionTunekitEngine = 130;
inline constexpr std::int64_t kReductionTunekitSplitEngine = 131;
inline constexpr std::int64_t kRmsNormTunekitEngine = 140;
inline constexpr std::int64_t kSoftmaxTunekitEngine = 150;
inline constexpr std::int64_t kPointwiseTunekitEngine = 160;

// The thread knob of the CPU engines: 1 .. hardware threads, default all of them.
graph::Knob threads_knob();

// An INT knob whose value must be one of `allowed` (which holds the default).
// Whether CPU_CONV_TUNEKIT_DIRECT with its default knobs runs `graph` (a
// convolution) in tiles whose lanes are groups with every output channel of
// a group in one tile (1, 2 or 4 per group): there it ran ResNeXt-50's
// 56 x 56 x 128 convolution of 32 groups 2.6x as fast as oneDNN's, which
// CPU_CONV_FIND's heuristic otherwise tries first. False for any other graph.
bool direct_conv_runs_whole_groups_in_lanes(const graph::OperationGraph& graph);

graph::Knob int_choice_knob(std::string id, std::int64_t default_value, const std::vector<std::int64_t>& allowed,
                            std::string description);

class TunekitEngineProvider final : public graph::EngineProvider {
 public:
  TunekitEngineProvider();
  std::string name() const override { return "tunekit"; }
  // "tunekit-<version>-engines-4": the tunekit_cpu library version and the
  // revision of these engines.
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_tunekit_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
