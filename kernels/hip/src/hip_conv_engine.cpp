// HIP_CONV_TUNEKIT_IMPLICIT_GEMM: conv_fprop (NCHW or NHWC, stride, padding,
// dilation, groups, bias and relu) as a Gemm whose input tiles are gathered
// from X as they are loaded.
#include <fmt/format.h>

#include "hip_engine_support.hpp"
#include "hip_kernels.hpp"
#include "tunekit/engines/conv_pattern.hpp"

namespace tunekit::hip_engines {
namespace {

using engines::ConvPattern;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using hip_kernels::MatmulTile;

std::string tile_name(const MatmulTile& t) {
  return fmt::format("{}x{}x{}/{}", t.tile_m, t.tile_n, t.tile_k, t.threads_per_block);
}

// The tile knob: "pixels x channels x depth / threads", one of the compiled tiles.
constexpr const char* kDefaultTile = "64x64x8/256";

graph::Knob tile_knob() {
  graph::Knob knob;
  knob.id = "tile";
  knob.type = graph::KnobType::STRING;
  for (int i = 0; i < hip_kernels::conv_tile_count(); ++i)
    knob.allowed_values.emplace_back(tile_name(hip_kernels::conv_tile(i)));
  knob.default_value = std::string(kDefaultTile);
  knob.description = "output pixels x output channels x reduction depth of a block's tile / threads of the block";
  return knob;
}

Result<MatmulTile> tile_of(const KnobValues& knobs) {
  const std::string wanted = knobs.get_string("tile", kDefaultTile);
  for (int i = 0; i < hip_kernels::conv_tile_count(); ++i) {
    if (tile_name(hip_kernels::conv_tile(i)) == wanted) return hip_kernels::conv_tile(i);
  }
  return Error(ErrorCode::INVALID_VALUE, fmt::format("knob tile: no kernel is compiled for tile \"{}\"", wanted));
}

class ConvKernel final : public ExecutionKernel {
 public:
  ConvKernel(ConvPattern pattern, MatmulTile tile) : pattern_(std::move(pattern)), tile_(tile) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& a) override {
    Result<engines::ConvBuffers> buffers = engines::find_buffers(pattern_, a.variant_pack);
    if (!buffers.ok()) return buffers.error();
    const ConvPattern& p = pattern_;
    hip_kernels::ConvArgs args;
    args.n = p.n, args.c = p.c, args.h = p.h, args.w = p.w, args.k = p.k, args.r = p.r, args.s = p.s;
    args.p = p.p, args.q = p.q, args.groups = p.groups;
    args.pad_h = p.pad_h, args.pad_w = p.pad_w, args.stride_h = p.stride_h, args.stride_w = p.stride_w;
    args.dilation_h = p.dilation_h, args.dilation_w = p.dilation_w;
    args.nhwc = p.nhwc;
    args.x = buffers->x, args.filter = buffers->w, args.bias = buffers->bias, args.y = buffers->y;
    args.relu = p.relu;
    return launch_status(hip_kernels::conv_implicit_gemm(args, tile_, native_stream(a)),
                         "HIP_CONV_TUNEKIT_IMPLICIT_GEMM");
  }

 private:
  ConvPattern pattern_;
  MatmulTile tile_;
};

}  // namespace

std::shared_ptr<const graph::Engine> conv_engine() {
  return hip_pattern_engine<ConvPattern>(
      {kConvImplicitGemmEngine,
       "HIP_CONV_TUNEKIT_IMPLICIT_GEMM",
       {tile_knob()},
       100,
       "conv_fprop on the GPU as an implicit Gemm: output pixels by output channels, the input patch gathered into "
       "shared memory"},
      engines::match_conv,
      [](const ConvPattern&, const KnobValues& knobs) -> Result<std::int64_t> {
        TUNEKIT_RETURN_IF_ERROR(tile_of(knobs).error());
        return std::int64_t{0};
      },
      [](const ConvPattern& p, const KnobValues& knobs, int) -> Result<std::unique_ptr<ExecutionKernel>> {
        Result<MatmulTile> tile = tile_of(knobs);
        if (!tile.ok()) return tile.error();
        return std::unique_ptr<ExecutionKernel>(new ConvKernel(p, *tile));
      });
}

}  // namespace tunekit::hip_engines
