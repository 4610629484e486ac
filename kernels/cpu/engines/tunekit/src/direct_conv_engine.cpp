// CPU_CONV_TUNEKIT_DIRECT: the convolution computed straight from the input,
// register tile by register tile (direct_conv_kernels.hpp), instead of
// unrolling patches into memory first as im2col does. Per execution the
// filter is packed into the workspace as [group][output channel block]
// [input channel part][tap][input channel][block_k output channels], and the
// input is copied there as padded NHWC when it is NCHW or padded, so that
// the tiles see no border. The input channels may be summed part by part
// (the channel_block knob), so that a part's filter stays in a nearer cache
// while a whole output row reuses it, Y holding the partial sums; on a Zen 3
// one pass over all channels was as fast or faster on the ResNet-50 layers
// except the strided one at batch 4 (64 channels per part 10% faster), so
// one pass is the default. Y in NCHW is written through a per-thread row of
// the tile's layout.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "direct_conv_kernels.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;

// Input channels per part: all of them (knob 0), else at most the knob's
// value, evened out so that the parts differ by at most one channel.
std::int64_t channels_per_part(std::int64_t channels, std::int64_t knob) {
  const std::int64_t most = knob > 0 ? std::min(knob, channels) : channels;
  const std::int64_t parts = (channels + most - 1) / most;
  return (channels + parts - 1) / parts;
}

// Where each part of the workspace lies, in floats, for one pattern and path.
struct DirectLayout {
  std::int64_t channels_in = 0, channels_out = 0;  // per group
  std::int64_t blocks = 0;                         // channel blocks per group
  std::int64_t taps = 0;
  std::int64_t part = 0;           // input channels per part (the last may have fewer)
  std::int64_t block_floats = 0;   // one block's packed filter
  std::int64_t filter_floats = 0;  // all of them
  bool copies_input = false;
  std::int64_t padded_h = 0, padded_w = 0;
  std::int64_t input_floats = 0;  // the padded NHWC copy, when made

  DirectLayout(const ConvPattern& p, const DirectConvKernels& kernels, std::int64_t channel_block) {
    channels_in = p.c / p.groups;
    channels_out = p.k / p.groups;
    blocks = (channels_out + kernels.block_k - 1) / kernels.block_k;
    taps = p.r * p.s;
    part = channels_per_part(channels_in, channel_block);
    block_floats = taps * channels_in * kernels.block_k;
    filter_floats = p.groups * blocks * block_floats;
    copies_input = !p.nhwc || p.pad_h > 0 || p.pad_w > 0;
    padded_h = p.h + 2 * p.pad_h;
    padded_w = p.w + 2 * p.pad_w;
    input_floats = copies_input ? p.n * padded_h * padded_w * p.c : 0;
  }
  std::int64_t workspace_bytes() const {
    return (filter_floats + input_floats) * static_cast<std::int64_t>(sizeof(float));
  }
};

class DirectConvKernel final : public ExecutionKernel {
 public:
  DirectConvKernel(const ConvPattern& pattern, const DirectConvKernels& kernels, std::int64_t channel_block,
                   int threads)
      : p_(pattern), kernels_(kernels), layout_(pattern, kernels, channel_block), threads_(threads) {}

  std::int64_t workspace_size() const override { return layout_.workspace_bytes(); }

  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<ConvBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    auto* packed = static_cast<float*>(args.workspace);
    float* copied = packed + layout_.filter_floats;
    pack_filter(b->w, packed);
    const float* input = b->x;
    if (layout_.copies_input) {
      copy_input(b->x, copied);
      input = copied;
    }
    convolve(input, packed, b->bias, b->y);
    return Error::ok();
  }

 private:
  // [group][block][part][r][s][c of the part][j] = W[k][c][r][s] for k =
  // the group's first + block * block_k + j; 0 past the group. A part of
  // the channels from c0 starts at taps * c0 * block_k in its block.
  void pack_filter(const float* w, float* packed) const {
    const std::int64_t bk = kernels_.block_k, cg = layout_.channels_in, kg = layout_.channels_out;
    const std::int64_t blocks = p_.groups * layout_.blocks;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t gb = 0; gb < blocks; ++gb) {
      const std::int64_t g = gb / layout_.blocks, first = gb % layout_.blocks * bk;
      float* out = packed + gb * layout_.block_floats;
      for (std::int64_t c0 = 0; c0 < cg; c0 += layout_.part) {
        const std::int64_t c1 = std::min(cg, c0 + layout_.part);
        for (std::int64_t r = 0; r < p_.r; ++r) {
          for (std::int64_t s = 0; s < p_.s; ++s) {
            for (std::int64_t c = c0; c < c1; ++c) {
              for (std::int64_t j = 0; j < bk; ++j, ++out) {
                const std::int64_t k = first + j;
                *out = k < kg ? w[(((g * kg + k) * cg + c) * p_.r + r) * p_.s + s] : 0.0f;
              }
            }
          }
        }
      }
    }
  }

  // X as NHWC with the padding as zeros: [n][padded_h][padded_w][c].
  void copy_input(const float* x, float* out) const {
    const std::int64_t hp = layout_.padded_h, wp = layout_.padded_w, c = p_.c;
    const std::int64_t rows = p_.n * hp;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t image = row / hp, ih = row % hp - p_.pad_h;
      float* line = out + row * wp * c;
      if (ih < 0 || ih >= p_.h) {
        std::fill_n(line, wp * c, 0.0f);
        continue;
      }
      std::fill_n(line, p_.pad_w * c, 0.0f);
      std::fill_n(line + (p_.pad_w + p_.w) * c, p_.pad_w * c, 0.0f);
      float* inside = line + p_.pad_w * c;
      if (p_.nhwc) {
        std::copy_n(x + (image * p_.h + ih) * p_.w * c, p_.w * c, inside);
      } else {
        const float* plane = x + image * c * p_.h * p_.w + ih * p_.w;
        for (std::int64_t iw = 0; iw < p_.w; ++iw) {
          for (std::int64_t ch = 0; ch < c; ++ch) inside[iw * c + ch] = plane[ch * p_.h * p_.w + iw];
        }
      }
    }
  }

  // Every (group, block, image, output row) is one task; tasks of one block
  // follow each other, so that a thread keeps reusing that block's filter.
  void convolve(const float* input, const float* packed, const float* bias, float* y) const {
    const std::int64_t bk = kernels_.block_k, kg = layout_.channels_out, cg = layout_.channels_in;
    const std::int64_t in_h = layout_.copies_input ? layout_.padded_h : p_.h;
    const std::int64_t in_w = layout_.copies_input ? layout_.padded_w : p_.w;
    const std::int64_t tasks = p_.groups * layout_.blocks * p_.n * p_.p;
#pragma omp parallel num_threads(threads_)
    {
      std::vector<const float*> taps(static_cast<std::size_t>(layout_.taps));
      // NCHW: the tile writes a row in its own layout here first.
      std::vector<float> staged(p_.nhwc ? 0 : static_cast<std::size_t>(p_.q * bk));
      alignas(64) float block_bias[64] = {};
      DirectConvRow row;
      row.taps = taps.data();
      row.tap_count = layout_.taps;
      row.pixel_step = p_.stride_w * p_.c;
      row.pixels = p_.q;
#pragma omp for schedule(static)
      for (std::int64_t task = 0; task < tasks; ++task) {
        const std::int64_t oh = task % p_.p, image = task / p_.p % p_.n, gb = task / (p_.p * p_.n);
        const std::int64_t g = gb / layout_.blocks, first = gb % layout_.blocks * bk;
        const std::int64_t k0 = g * kg + first;  // the block's first channel of Y
        row.valid_k = std::min(bk, kg - first);
        if (bias != nullptr) {
          for (std::int64_t j = 0; j < bk; ++j) block_bias[j] = j < row.valid_k ? bias[k0 + j] : 0.0f;
        }
        if (p_.nhwc) {
          row.y = y + ((image * p_.p + oh) * p_.q) * p_.k + k0;
          row.y_pixel_step = p_.k;
        } else {
          row.y = staged.data();
          row.y_pixel_step = bk;
        }
        const float* block_filter = packed + gb * layout_.block_floats;
        for (std::int64_t c0 = 0; c0 < cg; c0 += layout_.part) {
          row.channels = std::min(layout_.part, cg - c0);
          row.weights = block_filter + layout_.taps * c0 * bk;
          row.accumulate = c0 > 0;
          const bool last = c0 + row.channels == cg;
          row.bias = last && bias != nullptr ? block_bias : nullptr;
          row.relu = last && p_.relu;
          for (std::int64_t r = 0; r < p_.r; ++r) {
            const std::int64_t ih = oh * p_.stride_h + r * p_.dilation_h;
            for (std::int64_t s = 0; s < p_.s; ++s) {
              taps[static_cast<std::size_t>(r * p_.s + s)] =
                  input + ((image * in_h + ih) * in_w + s * p_.dilation_w) * p_.c + g * cg + c0;
            }
          }
          kernels_.row(row);
        }
        if (!p_.nhwc) {
          float* plane = y + (image * p_.k + k0) * p_.p * p_.q + oh * p_.q;
          for (std::int64_t j = 0; j < row.valid_k; ++j) {
            float* line = plane + j * p_.p * p_.q;
            for (std::int64_t ow = 0; ow < p_.q; ++ow) line[ow] = staged[static_cast<std::size_t>(ow * bk + j)];
          }
        }
      }
    }
  }

  ConvPattern p_;
  const DirectConvKernels& kernels_;
  DirectLayout layout_;
  int threads_;
};

graph::Knob channel_block_knob() {
  graph::Knob knob;
  knob.id = "channel_block";
  knob.type = graph::KnobType::INT;
  knob.default_value = std::int64_t{0};
  knob.allowed_values = {std::int64_t{0}, std::int64_t{16}, std::int64_t{32}, std::int64_t{64}, std::int64_t{128}};
  knob.description =
      "input channels summed per pass over a part of the filter, Y holding the partial sums (0: all in one pass)";
  return knob;
}

}  // namespace

std::shared_ptr<const graph::Engine> make_direct_conv_engine() {
  return std::make_shared<PatternEngine<ConvPattern>>(
      EngineDescriptor{kConvTunekitDirectEngine, "CPU_CONV_TUNEKIT_DIRECT", {threads_knob(), channel_block_knob()}, 10,
                       "register tiles of output pixels x output channels summed straight from the input (padded "
                       "NHWC copy when needed) against a packed filter, the bias and relu applied in registers"},
      match_conv,
      [](const ConvPattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        return DirectLayout(p, direct_conv_kernels(cpu::active_isa()), knobs.get_int("channel_block", 0))
            .workspace_bytes();
      },
      [](const ConvPattern& p, const KnobValues& knobs, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(new DirectConvKernel(
            p, direct_conv_kernels(cpu::active_isa()), knobs.get_int("channel_block", 0), threads));
      });
}

}  // namespace tunekit::engines::detail
