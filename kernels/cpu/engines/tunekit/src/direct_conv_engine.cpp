// CPU_CONV_TUNEKIT_DIRECT: the convolution computed straight from the input,
// register tile by register tile (direct_conv_kernels.hpp), instead of
// unrolling patches into memory first as im2col does. Per execution the
// filter is packed as [group][output channel block][input channel part][tap]
// [input channel][block_k output channels], all of it into the workspace
// when the rows go outermost, else block by block into a buffer of each
// thread as its tasks reach the block (DirectLayout::packs_per_thread); an
// NCHW input is copied there as NHWC (the tiles read a pixel's channels
// together) and Y in NCHW is written through a per-thread row of the tile's
// layout. Where border pixels (some tap in the padding) are many, X is
// copied into the workspace with its padding as zeros and every pixel runs
// in a tile (the padding knob); otherwise the pixels of an output row whose
// every tap lies inside X run as tiles, and each border pixel runs on its
// own with only the taps that lie inside.
//
// The input channels may be summed part by part (the channel_block knob), so
// that a part's filter stays in a nearer cache while a whole output row
// reuses it, Y holding the partial sums; on a Zen 3 one pass over all
// channels was as fast or faster on the ResNet-50 layers except the strided
// one at batch 4 (64 channels per part 10% faster), so one pass is the
// default. A depthwise convolution (groups = C = K) has tiles of its own,
// whose lanes are channels: blocks of block_k groups, the filter packed as
// [block][tap][block_k]; a task is an output row (or, with more threads than
// rows to share, part of its channels) whose pixel tiles run every channel
// block in turn, so that X is read and Y written along their contiguous
// NHWC channels (one block per task, a 64-byte column of every pixel, ran
// 2.2x slower at batch 1 on a Zen 3). Groups of few channels (ResNeXt's 4
// per group would fill 4 of a 32-channel tile's lanes) run with lanes of
// groups instead (the lanes knob; DirectLayout::grouped): X copied with its
// padding and each lane block's channels reordered, the filter and the bias
// packed to match, a task per output row and lane block.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "direct_conv_kernels.hpp"
#include "tunekit/cpu/team.hpp"
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

// The whole packed filter up to which the rows go outermost by default: half
// of the smallest L2 cache of the x86-64 processors tunekit runs on (512 KiB
// per core on a Zen 3), so that every block's filter stays there while a
// row's input is reused across the blocks.
constexpr std::int64_t kRowsOuterFilterBytes = 256 * 1024;

// The share of border pixels (some tap in the padding) beyond which the
// padding knob's auto copies X with its padding: a border pixel runs alone
// with the taps inside, at a fraction of a tile's speed (ResNet-50's 3x3 at
// 14 x 14, 27% border pixels: they took a quarter of the time on a Zen 5; at
// 56 x 56, 7%, the copy is not worth its pass over X).
constexpr double kBorderFractionToCopy = 0.125;

constexpr std::int64_t kWorkspaceAlignment = 64;

// The most groups a lane block of the grouped tiles holds (16 on AVX-512).
constexpr std::int64_t kMaxGroupLanes = 16;

void* align_up(void* workspace) {
  const auto address = reinterpret_cast<std::uintptr_t>(workspace);
  const auto misalignment = address % kWorkspaceAlignment;
  return static_cast<std::byte*>(workspace) + (misalignment == 0 ? 0 : kWorkspaceAlignment - misalignment);
}

// A thread's packed filter block (DirectLayout::packs_per_thread) of at
// least `floats`; it grows only, so that an execution allocates only when a
// thread first needs a larger block. Null when there is no memory for it.
float* thread_block_buffer(std::int64_t floats) {
  thread_local std::vector<float> buffer;
  try {
    if (buffer.size() < static_cast<std::size_t>(floats)) buffer.resize(static_cast<std::size_t>(floats));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  return buffer.data();
}

// The output pixels of a row whose every tap lies inside X: [first, last).
struct InteriorPixels {
  std::int64_t first = 0, last = 0;
};

// Along one axis: out output positions, `size` input ones.
InteriorPixels interior_range(std::int64_t out, std::int64_t size, std::int64_t pad, std::int64_t stride,
                              std::int64_t taps, std::int64_t dilation) {
  // o * stride - pad >= 0 and o * stride - pad + (taps - 1) * dilation <= size - 1.
  InteriorPixels in;
  in.first = std::min(out, (pad + stride - 1) / stride);
  const std::int64_t reach = size - 1 + pad - (taps - 1) * dilation;
  in.last = reach < 0 ? 0 : std::min(out, reach / stride + 1);
  in.last = std::max(in.last, in.first);
  return in;
}

InteriorPixels interior_pixels(const ConvPattern& p) {
  return interior_range(p.q, p.w, p.pad_w, p.stride_w, p.s, p.dilation_w);
}

// The share of the output pixels some tap of which falls in the padding.
double border_fraction(const ConvPattern& p) {
  const InteriorPixels rows = interior_range(p.p, p.h, p.pad_h, p.stride_h, p.r, p.dilation_h);
  const InteriorPixels columns = interior_pixels(p);
  const double interior = static_cast<double>(rows.last - rows.first) * static_cast<double>(columns.last - columns.first);
  return 1.0 - interior / (static_cast<double>(p.p) * static_cast<double>(p.q));
}

// The pattern as the tiles read X: from a padded copy, a larger X without padding.
ConvPattern as_read(const ConvPattern& p, bool padded_copy) {
  if (!padded_copy) return p;
  ConvPattern read = p;
  read.h = p.h + 2 * p.pad_h;
  read.w = p.w + 2 * p.pad_w;
  read.pad_h = read.pad_w = 0;
  return read;
}

// One input and one output channel per group.
bool is_depthwise(const ConvPattern& p) { return p.c == p.groups && p.k == p.groups; }

// The lanes knob: groups, or with auto, groups of at most half a tile's
// output channels (the tiles of output channels would leave half their
// lanes or more idle), where no other knob asks for what only those tiles
// do. Never for a depthwise convolution, which has tiles of groups already.
bool lanes_are_groups(const ConvPattern& p, const DirectConvKernels& kernels, const KnobValues& knobs) {
  const std::string lanes = knobs.get_string("lanes", "auto");
  if (lanes != "auto" || is_depthwise(p)) return lanes == "groups";
  return p.groups > 1 && 2 * (p.k / p.groups) <= kernels.block_k && knobs.get_int("channel_block", 0) == 0 &&
         knobs.get_string("order", "auto") == "auto" && knobs.get_string("padding", "auto") != "in_place";
}

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
  std::int64_t blocks = 0;  // output channel blocks per group (depthwise: of groups)
  std::int64_t taps = 0;
  std::int64_t part = 0;           // input channels per part (the last may have fewer)
  bool depthwise = false;          // one input and one output channel per group
  // Lanes are groups (the lanes knob; DirectConvKernels::grouped_row): X
  // copied as [n][h + 2 pad_h][w + 2 pad_w][lane block][channel of the
  // group][group_lanes], the filter packed as [lane block][J-block of output
  // channels][tap][channel][J][group_lanes], the bias as [lane block]
  // [J-block][J][group_lanes]; a task is one output row of one lane block.
  bool grouped = false;
  std::int64_t lane_blocks = 0;    // grouped: blocks of group_lanes groups
  int group_j = 1;                 // grouped: output channels per group in a tile (1, 2 or 4)
  std::int64_t lane_floats = 0;    // grouped: X's copy's floats per pixel
  std::int64_t bias_floats = 0;    // grouped: the packed bias
  std::int64_t block_floats = 0;   // one block's packed filter
  std::int64_t filter_floats = 0;  // all of them
  std::int64_t input_floats = 0;   // the NHWC copy of X (NCHW, or padded)
  // X copied with its padding as zeros (the padding knob): every output
  // pixel is then interior and runs in a tile with every tap.
  bool padded_copy = false;
  // Task order: all blocks of an output row after each other (the row's
  // input reused from the cache), else all rows of a block (its filter reused).
  bool rows_outer = false;
  // Rows outer (or depthwise): the whole filter is packed into the workspace
  // before the tasks run. Blocks outer: each thread packs the block its next
  // task needs into a buffer of its own, just before using it, so that the
  // packed block is read back from the thread's L2 cache instead of from
  // memory shared with the other threads (packing all of a 2.4 MB filter up
  // front took a fifth of a 14 x 14 x 256 3x3 convolution's time on a Zen 5).
  bool packs_per_thread() const { return !rows_outer && !depthwise && !grouped; }
  // The filter (and the bias) packed before the tasks run, at the workspace's start.
  std::int64_t shared_filter_floats() const { return packs_per_thread() ? 0 : filter_floats + bias_floats; }

  // From the knobs channel_block, order, padding and lanes.
  DirectLayout(const ConvPattern& p, const DirectConvKernels& kernels, const KnobValues& knobs) {
    const std::string order = knobs.get_string("order", "auto"), padding = knobs.get_string("padding", "auto");
    channels_in = p.c / p.groups;
    channels_out = p.k / p.groups;
    taps = p.r * p.s;
    part = channels_per_part(channels_in, knobs.get_int("channel_block", 0));
    depthwise = is_depthwise(p);
    grouped = lanes_are_groups(p, kernels, knobs);
    if (grouped) {
      lane_blocks = (p.groups + kernels.group_lanes - 1) / kernels.group_lanes;
      group_j = channels_out % 4 == 0 ? 4 : (channels_out % 2 == 0 ? 2 : 1);
      lane_floats = lane_blocks * channels_in * kernels.group_lanes;
      filter_floats = lane_blocks * channels_out * taps * channels_in * kernels.group_lanes;
      bias_floats = lane_blocks * channels_out * kernels.group_lanes;
      padded_copy = true;
      input_floats = p.n * (p.h + 2 * p.pad_h) * (p.w + 2 * p.pad_w) * lane_floats;
      return;
    }
    if (depthwise) {
      blocks = (p.groups + kernels.block_k - 1) / kernels.block_k;
      block_floats = taps * kernels.block_k;
      filter_floats = blocks * block_floats;
    } else {
      blocks = (channels_out + kernels.block_k - 1) / kernels.block_k;
      block_floats = taps * channels_in * kernels.block_k;
      filter_floats = p.groups * blocks * block_floats;
    }
    if (padding == "copy") {
      padded_copy = p.pad_h > 0 || p.pad_w > 0;
    } else if (padding == "auto") {
      padded_copy = border_fraction(p) > kBorderFractionToCopy;
    }
    input_floats = padded_copy ? p.n * (p.h + 2 * p.pad_h) * (p.w + 2 * p.pad_w) * p.c
                               : (p.nhwc ? 0 : p.n * p.h * p.w * p.c);
    if (order == "rows") {
      rows_outer = true;
    } else if (order == "blocks") {
      rows_outer = false;
    } else {  // auto
      rows_outer = filter_floats * static_cast<std::int64_t>(sizeof(float)) <= kRowsOuterFilterBytes;
    }
  }
  // What the parts take, and a cache line more to start them on one: the
  // tiles' vector loads of the filter and of the grouped copy of X are
  // aligned then (a workspace at 16 bytes past a line made the grouped tiles
  // 1.4x slower on an Emerald Rapids, every load split across two lines).
  std::int64_t workspace_bytes() const {
    const std::int64_t used = (shared_filter_floats() + input_floats) * static_cast<std::int64_t>(sizeof(float));
    return used > 0 ? used + kWorkspaceAlignment : 0;
  }
};

class DirectConvKernel final : public ExecutionKernel {
 public:
  DirectConvKernel(const ConvPattern& pattern, const DirectConvKernels& kernels, const KnobValues& knobs, int threads)
      : p_(pattern), kernels_(kernels),
        layout_(pattern, kernels, knobs),
        x_(as_read(pattern, layout_.padded_copy)), interior_(interior_pixels(x_)), threads_(threads) {}

  std::int64_t workspace_size() const override { return layout_.workspace_bytes(); }

  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<ConvBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    auto* packed = static_cast<float*>(align_up(args.workspace));
    const float* input = b->x;
    float* copied = packed + layout_.shared_filter_floats();
    if (layout_.grouped) {
      copy_to_lanes(b->x, copied);
      pack_grouped_filter(b->w, packed);
      float* packed_bias = packed + layout_.filter_floats;
      if (b->bias != nullptr) pack_grouped_bias(b->bias, packed_bias);
      convolve_grouped(copied, packed, b->bias != nullptr ? packed_bias : nullptr, b->y);
      return Error::ok();
    }
    if (layout_.padded_copy) {
      copy_padded(b->x, copied);
      input = copied;
    } else if (!p_.nhwc) {
      copy_to_nhwc(b->x, copied);
      input = copied;
    }
    if (layout_.depthwise) {
      pack_depthwise_filter(b->w, packed);
      convolve_depthwise(input, packed, b->bias, b->y);
    } else {
      if (!layout_.packs_per_thread()) pack_filter(b->w, packed);
      if (!convolve(input, b->w, packed, b->bias, b->y)) {
        return Error(ErrorCode::EXECUTION_FAILED,
                     fmt::format("CPU_CONV_TUNEKIT_DIRECT: no memory for a thread's packed filter block ({} bytes)",
                                 layout_.block_floats * static_cast<std::int64_t>(sizeof(float))));
      }
    }
    return Error::ok();
  }

 private:
  // [group][block][part][r][s][c of the part][j] = W[k][c][r][s] for k =
  // the group's first + block * block_k + j; 0 past the group. A part of
  // the channels from c0 starts at taps * c0 * block_k in its block. Runs
  // once per execution, so it reads W's block_k rows side by side, channel
  // by channel (the lines of one channel's taps serve the next channel too),
  // and writes whole block_k runs: walking W along one row k per output
  // element instead read a new line per element and took a quarter of the
  // time of ResNet-50's 3x3 convolution at 14 x 14 x 256 (Zen 5).
  void pack_filter(const float* w, float* packed) const {
    cpu::parallel_for(threads_, p_.groups * layout_.blocks,
                      [&](std::int64_t gb) { pack_block(w, gb, packed + gb * layout_.block_floats); });
  }

  // Block gb (group * blocks + block) of the packed filter at `out`.
  void pack_block(const float* w, std::int64_t gb, float* out) const {
    const std::int64_t bk = kernels_.block_k, cg = layout_.channels_in, kg = layout_.channels_out;
    const std::int64_t taps = layout_.taps;
    const std::int64_t g = gb / layout_.blocks, first = gb % layout_.blocks * bk;
    const std::int64_t valid = std::min(bk, kg - first);
    const float* rows = w + (g * kg + first) * cg * taps;  // row j of the block: rows + j * cg * taps
    for (std::int64_t c0 = 0; c0 < cg; c0 += layout_.part) {
      const std::int64_t length = std::min(cg, c0 + layout_.part) - c0;
      for (std::int64_t c = 0; c < length; ++c) {
        const float* column = rows + (c0 + c) * taps;
        for (std::int64_t t = 0; t < taps; ++t) {
          float* to = out + (t * length + c) * bk;
          for (std::int64_t j = 0; j < valid; ++j) to[j] = column[j * cg * taps + t];
          for (std::int64_t j = valid; j < bk; ++j) to[j] = 0.0f;
        }
      }
      out += taps * length * bk;
    }
  }

  // [block][r][s][j] = W[block * block_k + j][0][r][s], 0 past the last channel.
  void pack_depthwise_filter(const float* w, float* packed) const {
    const std::int64_t bk = kernels_.block_k;
    for (std::int64_t block = 0; block < layout_.blocks; ++block) {
      float* out = packed + block * layout_.block_floats;
      for (std::int64_t t = 0; t < layout_.taps; ++t) {
        for (std::int64_t j = 0; j < bk; ++j, ++out) {
          const std::int64_t k = block * bk + j;
          *out = k < p_.k ? w[k * layout_.taps + t] : 0.0f;
        }
      }
    }
  }

  // NCHW X as NHWC: [n][h][w][c].
  void copy_to_nhwc(const float* x, float* out) const {
    const std::int64_t c = p_.c, plane = p_.h * p_.w;
    const std::int64_t pixels = p_.n * plane;
    cpu::parallel_for(threads_, pixels, [&](std::int64_t pixel) {
      const float* from = x + pixel / plane * c * plane + pixel % plane;
      float* to = out + pixel * c;
      for (std::int64_t ch = 0; ch < c; ++ch) to[ch] = from[ch * plane];
    });
  }

  // X's copy with its padding, `floats` per pixel, row by row between the
  // threads: the padding rows and columns as zeros, and each row's pixels
  // inside by fill(image, ih, first pixel inside).
  template <typename FillInside>
  void copy_rows_with_padding(float* out, std::int64_t floats, FillInside fill) const {
    const std::int64_t height = x_.h, width = x_.w;
    cpu::parallel_for(threads_, p_.n * height, [&](std::int64_t padded_row) {
      const std::int64_t image = padded_row / height, ih = padded_row % height - p_.pad_h;
      float* to = out + padded_row * width * floats;
      if (ih < 0 || ih >= p_.h) {
        std::fill(to, to + width * floats, 0.0f);
        return;
      }
      std::fill(to, to + p_.pad_w * floats, 0.0f);
      std::fill(to + (p_.pad_w + p_.w) * floats, to + width * floats, 0.0f);
      fill(image, ih, to + p_.pad_w * floats);
    });
  }

  // X (NHWC or NCHW) as NHWC with its padding as zeros: [n][h + 2 pad_h]
  // [w + 2 pad_w][c].
  void copy_padded(const float* x, float* out) const {
    const std::int64_t c = p_.c;
    copy_rows_with_padding(out, c, [&](std::int64_t image, std::int64_t ih, float* inside) {
      if (p_.nhwc) {
        const float* from = x + (image * p_.h + ih) * p_.w * c;
        std::copy(from, from + p_.w * c, inside);
        return;
      }
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const float* from = x + ((image * c + ch) * p_.h + ih) * p_.w;
        for (std::int64_t iw = 0; iw < p_.w; ++iw) inside[iw * c + ch] = from[iw];
      }
    });
  }

  // X (NHWC or NCHW) as the grouped tiles read it (DirectLayout::grouped),
  // with its padding as zeros.
  void copy_to_lanes(const float* x, float* out) const {
    const std::int64_t floats = layout_.lane_floats, lanes = kernels_.group_lanes, cg = layout_.channels_in;
    copy_rows_with_padding(out, floats, [&](std::int64_t image, std::int64_t ih, float* inside) {
      if (p_.nhwc) {
        const float* from = x + (image * p_.h + ih) * p_.w * p_.c;
        for (std::int64_t iw = 0; iw < p_.w; ++iw) {
          kernels_.channels_to_lanes(from + iw * p_.c, inside + iw * floats, cg, p_.groups);
        }
        return;
      }
      const std::int64_t plane = p_.h * p_.w;
      const float* from = x + image * p_.c * plane + ih * p_.w;
      for (std::int64_t g = 0; g < layout_.lane_blocks * lanes; ++g) {
        for (std::int64_t c = 0; c < cg; ++c) {
          float* lane = inside + (g / lanes * cg + c) * lanes + g % lanes;
          if (g >= p_.groups) {
            for (std::int64_t iw = 0; iw < p_.w; ++iw) lane[iw * floats] = 0.0f;
            continue;
          }
          const float* channel = from + (g * cg + c) * plane;
          for (std::int64_t iw = 0; iw < p_.w; ++iw) lane[iw * floats] = channel[iw];
        }
      }
    });
  }

  // Grouped: [lane block][J-block][tap][c][j][lane] = W[k][c][r][s] for k =
  // group (block * group_lanes + lane) x channels_out + J-block x J + j; 0
  // past the last group. A transpose of the block's rows of W (one per
  // group), done through a small tile: 16 consecutive floats of each row
  // read, then each packed vector (one float of every row) written whole.
  // Gathering every vector's lanes from rows 9 KiB apart took a third of a
  // 14 x 14 x 512 (16 per group) convolution's time on one thread, and
  // scattering single floats 4 KiB apart a fifth.
  void pack_grouped_filter(const float* w, float* packed) const {
    constexpr std::int64_t kTile = 16;
    const std::int64_t lanes = kernels_.group_lanes, cg = layout_.channels_in, kg = layout_.channels_out;
    const std::int64_t taps = layout_.taps, j_size = layout_.group_j;
    const std::int64_t row_floats = kg * cg * taps;  // W's floats per group
    cpu::parallel_for(threads_, layout_.lane_blocks, [&](std::int64_t block) {
      float* out = packed + block * row_floats * lanes;
      const std::int64_t groups = std::min(lanes, p_.groups - block * lanes);
      float tile[kTile][kMaxGroupLanes] = {};
      // The next element of a row is W[.][c][t] of the group's output
      // channel k = J-block jb x J + j.
      std::int64_t jb = 0, j = 0, c = 0, t = 0;
      for (std::int64_t first = 0; first < row_floats; first += kTile) {
        const std::int64_t count = std::min(kTile, row_floats - first);
        for (std::int64_t lane = 0; lane < groups; ++lane) {
          const float* from = w + (block * lanes + lane) * row_floats + first;
          for (std::int64_t i = 0; i < count; ++i) tile[i][lane] = from[i];
        }
        for (std::int64_t i = 0; i < count; ++i) {
          std::copy(tile[i], tile[i] + lanes, out + ((jb * taps + t) * cg + c) * j_size * lanes + j * lanes);
          if (++t < taps) continue;
          t = 0;
          if (++c < cg) continue;
          c = 0;
          if (++j == j_size) j = 0, ++jb;
        }
      }
    });
  }

  // Grouped: [lane block][J-block][j][lane] = bias[k], k as for the filter.
  void pack_grouped_bias(const float* bias, float* packed) const {
    const std::int64_t lanes = kernels_.group_lanes, kg = layout_.channels_out;
    for (std::int64_t block = 0; block < layout_.lane_blocks; ++block) {
      for (std::int64_t k = 0; k < kg; ++k) {
        for (std::int64_t lane = 0; lane < lanes; ++lane, ++packed) {
          const std::int64_t g = block * lanes + lane;
          *packed = g < p_.groups ? bias[g * kg + k] : 0.0f;
        }
      }
    }
  }

  // Grouped: every (image, output row, lane block) is one task, which runs
  // the row's tiles for each J-block of the groups' output channels in turn
  // (X's lines of the row reused from the cache). Every pixel is interior:
  // X is always copied with its padding.
  void convolve_grouped(const float* input, const float* packed, const float* packed_bias, float* y) const {
    const std::int64_t lanes = kernels_.group_lanes, cg = layout_.channels_in, kg = layout_.channels_out;
    const std::int64_t j_size = layout_.group_j, floats = layout_.lane_floats, blocks = layout_.lane_blocks;
    const std::int64_t block_channels = lanes * kg;  // a lane block's output channels, contiguous in Y
    const std::int64_t tasks = p_.n * p_.p * blocks;
    const auto kernel = kernels_.grouped_row[j_size == 4 ? 2 : j_size - 1];
    cpu::run_on_team(threads_, [&] {
      std::vector<const float*> taps(static_cast<std::size_t>(layout_.taps));
      std::vector<const float*> tap_weights(static_cast<std::size_t>(layout_.taps));
      // NCHW: the tiles write a row of the block in NHWC order here first.
      std::vector<float> staged(p_.nhwc ? 0 : static_cast<std::size_t>(p_.q * block_channels));
      DirectConvRow row;
      row.taps = taps.data();
      row.tap_weights = tap_weights.data();
      row.tap_count = layout_.taps;
      row.channels = cg;
      row.pixel_step = p_.stride_w * floats;
      row.pixels = p_.q;
      row.relu = p_.relu;
      row.y_group_step = kg;
      row.y_pixel_step = p_.nhwc ? p_.k : block_channels;
#pragma omp for schedule(static)
      for (std::int64_t t = 0; t < tasks; ++t) {
        const std::int64_t block = t % blocks, oh = t / blocks % p_.p, image = t / (blocks * p_.p);
        row.valid_lanes = std::min(lanes, p_.groups - block * lanes);
        const std::int64_t k0 = block * block_channels;
        float* y_row = p_.nhwc ? y + ((image * p_.p + oh) * p_.q) * p_.k + k0 : staged.data();
        for (std::int64_t j0 = 0; j0 < kg; j0 += j_size) {
          const std::int64_t filter = (block * kg + j0) * layout_.taps * cg * lanes;
          std::int64_t n = 0;
          for (std::int64_t r = 0; r < x_.r; ++r) {
            const std::int64_t ih = oh * x_.stride_h + r * x_.dilation_h;
            for (std::int64_t s = 0; s < x_.s; ++s, ++n) {
              taps[static_cast<std::size_t>(n)] =
                  input + ((image * x_.h + ih) * x_.w + s * x_.dilation_w) * floats + block * cg * lanes;
              tap_weights[static_cast<std::size_t>(n)] = packed + filter + n * cg * j_size * lanes;
            }
          }
          row.y = y_row + j0;
          row.bias = packed_bias != nullptr ? packed_bias + (block * kg + j0) * lanes : nullptr;
          kernel(row);
        }
        if (!p_.nhwc) scatter_nchw_row(staged.data(), block_channels, row.valid_lanes * kg, image, k0, oh, y);
      }
    });
  }

  // What one task needs to run one output row of one channel block.
  struct RowTask {
    std::int64_t image = 0, oh = 0;
    std::int64_t channel = 0;        // X's first channel of the part
    const float* filter = nullptr;   // the part's filter, tap by tap
    std::int64_t tap_floats = 0;     // its floats per tap
    float* y = nullptr;              // the row's first pixel, first channel of the block
    std::int64_t y_pixel_step = 0;
  };

  // The interior pixels of the row as tiles, then each border pixel alone
  // with the taps that lie inside X (none: the bias alone, or 0).
  void run_row(const RowTask& task, const float* input, DirectConvRow& row, std::vector<const float*>& taps,
               std::vector<const float*>& tap_weights) const {
    auto gather = [&](std::int64_t ow, bool every_column) {
      std::int64_t n = 0;
      for (std::int64_t r = 0; r < x_.r; ++r) {
        const std::int64_t ih = task.oh * x_.stride_h - x_.pad_h + r * x_.dilation_h;
        if (ih < 0 || ih >= x_.h) continue;
        for (std::int64_t s = 0; s < x_.s; ++s) {
          const std::int64_t iw = ow * x_.stride_w - x_.pad_w + s * x_.dilation_w;
          if (!every_column && (iw < 0 || iw >= x_.w)) continue;
          taps[static_cast<std::size_t>(n)] = input + ((task.image * x_.h + ih) * x_.w + iw) * x_.c + task.channel;
          tap_weights[static_cast<std::size_t>(n)] = task.filter + (r * p_.s + s) * task.tap_floats;
          ++n;
        }
      }
      return n;
    };
    const auto kernel = layout_.depthwise ? kernels_.depthwise_row : kernels_.row;
    row.y_pixel_step = task.y_pixel_step;
    if (interior_.last > interior_.first) {
      row.tap_count = gather(interior_.first, true);
      row.tap_columns = p_.s;
      row.pixels = interior_.last - interior_.first;
      row.y = task.y + interior_.first * task.y_pixel_step;
      kernel(row);
    }
    for (std::int64_t ow = 0; ow < p_.q; ++ow) {
      if (ow == interior_.first) ow = std::max(ow, interior_.last);
      if (ow >= p_.q) break;
      row.tap_count = gather(ow, false);
      row.tap_columns = 0;
      row.pixels = 1;
      row.y = task.y + ow * task.y_pixel_step;
      kernel(row);
    }
  }

  // Every (group, block, image, output row) is one task, in the layout's
  // order: the blocks of one row after each other (a small filter), or the
  // rows of one block (a large filter, kept in the cache for its rows).
  // `packed`: the whole packed filter, unless each thread packs its blocks
  // from `w` (DirectLayout::packs_per_thread).
  // False when a thread could not get its buffer (nothing was computed then).
  bool convolve(const float* input, const float* w, const float* packed, const float* bias, float* y) const {
    const std::int64_t bk = kernels_.block_k, kg = layout_.channels_out, cg = layout_.channels_in;
    const std::int64_t block_count = p_.groups * layout_.blocks;
    const std::int64_t tasks = block_count * p_.n * p_.p;
    std::atomic<bool> out_of_memory{false};
    cpu::run_on_team(threads_, [&] {
      float* own_filter = nullptr;
      std::int64_t own_block = -1;
      if (layout_.packs_per_thread()) {
        own_filter = thread_block_buffer(layout_.block_floats);
        if (own_filter == nullptr) out_of_memory = true;
      }
#pragma omp barrier
      if (out_of_memory) return;
      std::vector<const float*> taps(static_cast<std::size_t>(layout_.taps));
      std::vector<const float*> tap_weights(static_cast<std::size_t>(layout_.taps));
      // NCHW: the tiles write a row in their own layout here first.
      std::vector<float> staged(p_.nhwc ? 0 : static_cast<std::size_t>(p_.q * bk));
      alignas(64) float block_bias[64] = {};
      DirectConvRow row;
      row.taps = taps.data();
      row.tap_weights = tap_weights.data();
      row.pixel_step = p_.stride_w * p_.c;
#pragma omp for schedule(static)
      for (std::int64_t t = 0; t < tasks; ++t) {
        RowTask task;
        std::int64_t gb = 0;
        if (layout_.rows_outer) {
          gb = t % block_count;
          task.oh = t / block_count % p_.p;
          task.image = t / (block_count * p_.p);
        } else {
          task.oh = t % p_.p;
          task.image = t / p_.p % p_.n;
          gb = t / (p_.p * p_.n);
        }
        // The block's first channel of Y and its channels there.
        const std::int64_t first = gb % layout_.blocks * bk;
        const std::int64_t k0 = gb / layout_.blocks * kg + first;
        row.valid_k = std::min(bk, kg - first);
        if (bias != nullptr) {
          for (std::int64_t j = 0; j < bk; ++j) block_bias[j] = j < row.valid_k ? bias[k0 + j] : 0.0f;
        }
        task.y = p_.nhwc ? y + ((task.image * p_.p + task.oh) * p_.q) * p_.k + k0 : staged.data();
        task.y_pixel_step = p_.nhwc ? p_.k : bk;
        const float* block_filter = packed + gb * layout_.block_floats;
        if (layout_.packs_per_thread()) {
          if (gb != own_block) {
            pack_block(w, gb, own_filter);
            own_block = gb;
          }
          block_filter = own_filter;
        }
        const std::int64_t group_channel = gb / layout_.blocks * cg;
        for (std::int64_t c0 = 0; c0 < cg; c0 += layout_.part) {
          row.channels = std::min(layout_.part, cg - c0);
          task.channel = group_channel + c0;
          task.filter = block_filter + layout_.taps * c0 * bk;
          task.tap_floats = row.channels * bk;
          row.accumulate = c0 > 0;
          const bool last = c0 + row.channels == cg;
          row.bias = last && bias != nullptr ? block_bias : nullptr;
          row.relu = last && p_.relu;
          run_row(task, input, row, taps, tap_weights);
        }
        if (!p_.nhwc) scatter_nchw_row(staged.data(), bk, row.valid_k, task.image, k0, task.oh, y);
      }
    });
    return !out_of_memory;
  }

  // Depthwise: every (image, output row, part of the channel blocks) is one
  // task whose pixel tiles run the part's blocks in turn. The rows are split
  // into parts only when they are too few to give every thread 4 tasks.
  void convolve_depthwise(const float* input, const float* packed, const float* bias, float* y) const {
    const std::int64_t bk = kernels_.block_k, rows = p_.n * p_.p;
    const std::int64_t parts = std::clamp<std::int64_t>((4 * threads_ + rows - 1) / rows, 1, layout_.blocks);
    const std::int64_t blocks_per_part = (layout_.blocks + parts - 1) / parts;
    const std::int64_t tasks = rows * parts;
    cpu::run_on_team(threads_, [&] {
      std::vector<const float*> taps(static_cast<std::size_t>(layout_.taps));
      std::vector<const float*> tap_weights(static_cast<std::size_t>(layout_.taps));
      const std::int64_t padded_channels = layout_.blocks * bk;
      // NCHW: the tiles write a row of the part in their own layout here first.
      std::vector<float> staged(p_.nhwc ? 0 : static_cast<std::size_t>(p_.q * blocks_per_part * bk));
      // The bias of every channel, zeros past the last (whose block reads block_k).
      std::vector<float> padded_bias(bias != nullptr ? static_cast<std::size_t>(padded_channels) : 0, 0.0f);
      if (bias != nullptr) std::copy(bias, bias + p_.k, padded_bias.begin());
      DirectConvRow row;
      row.taps = taps.data();
      row.tap_weights = tap_weights.data();
      row.pixel_step = p_.stride_w * p_.c;
      row.channels = 1;
      row.relu = p_.relu;
      row.block_weight_step = layout_.block_floats;
#pragma omp for schedule(static)
      for (std::int64_t t = 0; t < tasks; ++t) {
        const std::int64_t first_block = t % parts * blocks_per_part;
        if (first_block >= layout_.blocks) continue;
        RowTask task;
        task.oh = t / parts % p_.p;
        task.image = t / parts / p_.p;
        row.channel_blocks = std::min(blocks_per_part, layout_.blocks - first_block);
        const std::int64_t k0 = first_block * bk;
        const std::int64_t channels = std::min(row.channel_blocks * bk, p_.k - k0);
        row.valid_k = channels - (row.channel_blocks - 1) * bk;
        row.bias = bias != nullptr ? padded_bias.data() + k0 : nullptr;
        task.channel = k0;
        task.filter = packed + first_block * layout_.block_floats;
        task.tap_floats = bk;
        task.y = p_.nhwc ? y + ((task.image * p_.p + task.oh) * p_.q) * p_.k + k0 : staged.data();
        task.y_pixel_step = p_.nhwc ? p_.k : row.channel_blocks * bk;
        run_row(task, input, row, taps, tap_weights);
        if (!p_.nhwc) scatter_nchw_row(staged.data(), task.y_pixel_step, channels, task.image, k0, task.oh, y);
      }
    });
  }

  // A row of the tiles' layout ([ow][pixel_step floats]) into `channels` NCHW
  // planes from channel k0.
  void scatter_nchw_row(const float* staged, std::int64_t pixel_step, std::int64_t channels, std::int64_t image,
                        std::int64_t k0, std::int64_t oh, float* y) const {
    float* plane = y + (image * p_.k + k0) * p_.p * p_.q + oh * p_.q;
    for (std::int64_t j = 0; j < channels; ++j) {
      float* line = plane + j * p_.p * p_.q;
      for (std::int64_t ow = 0; ow < p_.q; ++ow) line[ow] = staged[ow * pixel_step + j];
    }
  }

  ConvPattern p_;
  const DirectConvKernels& kernels_;
  DirectLayout layout_;
  ConvPattern x_;  // p_ as the tiles read X (as_read)
  InteriorPixels interior_;
  int threads_;
};

graph::Knob order_knob() {
  return graph::choice_knob(
      "order", {"auto", "rows", "blocks"},
      "task order: rows (every output channel block of a row in turn), blocks (every row of a block in turn), "
      "auto (rows when the packed filter is at most 256 KiB); a depthwise convolution always runs by rows");
}

graph::Knob padding_knob() {
  return graph::choice_knob(
      "padding", {"auto", "copy", "in_place"},
      "copy: X copied into the workspace with its padding as zeros, so that every output pixel runs in a tile; "
      "in_place: the pixels whose taps reach into the padding run one by one with the taps inside; auto: copy "
      "when more than an eighth of the output pixels are such border pixels; a convolution without padding "
      "refuses copy and in_place, and one that runs in lanes of groups (which always copy X) refuses copy");
}

graph::Knob channel_block_knob() {
  return int_choice_knob(
      "channel_block", 0, {0, 16, 32, 64, 128},
      "input channels summed per pass over a part of the filter, Y holding the partial sums (0: all in one pass)");
}

graph::Knob lanes_knob() {
  return graph::choice_knob(
      "lanes", {"auto", "channels", "groups"},
      "what a tile's vector lanes hold: channels (output channels of one group), groups (one output channel of "
      "each of consecutive groups, X copied with its channels reordered to match), auto (groups when a group "
      "has at most half a tile's output channels); groups needs a grouped, not depthwise, convolution and "
      "refuses channel_block, order and padding in_place");
}

// A depthwise convolution has one input channel per group and runs by rows:
// the channel_block and order knobs have nothing to choose there, and a
// candidate that set them would time the defaults again.
Error check_depthwise_knobs(const ConvPattern& p, const KnobValues& knobs) {
  if (!is_depthwise(p)) return Error::ok();
  if (knobs.get_int("channel_block", 0) != 0) {
    return not_supported("channel_block: a depthwise convolution has one input channel per group");
  }
  if (knobs.get_string("order", "auto") != "auto") {
    return not_supported("order: a depthwise convolution always runs by rows");
  }
  return Error::ok();
}

// Without padding there is nothing to copy: copy and in_place would time
// the defaults again.
Error check_knobs(const ConvPattern& p, const KnobValues& knobs) {
  TUNEKIT_RETURN_IF_ERROR(check_depthwise_knobs(p, knobs));
  const std::string lanes = knobs.get_string("lanes", "auto");
  if (lanes != "auto" && is_depthwise(p)) {
    return not_supported("lanes: a depthwise convolution has tiles of its own (their lanes are groups)");
  }
  if (lanes == "channels" && p.groups == 1) return not_supported("lanes: this convolution has one group");
  // Lanes of groups always copy X: copy would time the defaults again.
  if (knobs.get_string("padding", "auto") == "copy" &&
      lanes_are_groups(p, direct_conv_kernels(cpu::active_isa()), knobs)) {
    return not_supported("padding copy: the tiles of lanes of groups always copy X");
  }
  if (lanes == "groups") {
    if (p.groups == 1) return not_supported("lanes groups: this convolution has one group");
    if (knobs.get_int("channel_block", 0) != 0) return not_supported("lanes groups: sums every channel in one pass");
    if (knobs.get_string("order", "auto") != "auto") return not_supported("lanes groups: runs by rows of lane blocks");
    if (knobs.get_string("padding", "auto") == "in_place") {
      return not_supported("lanes groups: always copies X (with its padding)");
    }
  }
  if (p.pad_h == 0 && p.pad_w == 0 && knobs.get_string("padding", "auto") != "auto") {
    return not_supported("padding: this convolution has no padding");
  }
  return Error::ok();
}

}  // namespace

}  // namespace tunekit::engines::detail

namespace tunekit::engines {

bool direct_conv_runs_whole_groups_in_lanes(const graph::OperationGraph& operation_graph) {
  Result<ConvPattern> pattern = match_conv(operation_graph);
  if (!pattern.ok()) return false;
  // The layout the defaults give: lanes of groups whose tile width J is all
  // of a group's output channels (1, 2 or 4 of them).
  const detail::DirectLayout layout(*pattern, detail::direct_conv_kernels(cpu::active_isa()), graph::KnobValues{});
  return layout.grouped && layout.group_j == layout.channels_out;
}

}  // namespace tunekit::engines

namespace tunekit::engines::detail {

std::shared_ptr<const graph::Engine> make_direct_conv_engine() {
  return std::make_shared<PatternEngine<ConvPattern>>(
      EngineDescriptor{kConvTunekitDirectEngine, "CPU_CONV_TUNEKIT_DIRECT",
                       {threads_knob(), channel_block_knob(), order_knob(), padding_knob(), lanes_knob()}, 10,
                       "register tiles of output pixels x output channels (depthwise: x channels; groups of few "
                       "channels: x groups) summed straight from the input against a packed filter, border pixels on "
                       "their own with the taps inside or X copied with its padding, the bias and relu applied in "
                       "registers"},
      match_conv,
      [](const ConvPattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        TUNEKIT_RETURN_IF_ERROR(check_knobs(p, knobs));
        return DirectLayout(p, direct_conv_kernels(cpu::active_isa()), knobs).workspace_bytes();
      },
      [](const ConvPattern& p, const KnobValues& knobs, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        TUNEKIT_RETURN_IF_ERROR(check_knobs(p, knobs));
        return std::unique_ptr<ExecutionKernel>(
            new DirectConvKernel(p, direct_conv_kernels(cpu::active_isa()), knobs, threads));
      });
}

}  // namespace tunekit::engines::detail
