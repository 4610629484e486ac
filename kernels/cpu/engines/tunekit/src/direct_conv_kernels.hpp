// Internal to tunekit_engines_tunekit: the register tiles of tunekit's direct
// convolution (CPU_CONV_TUNEKIT_DIRECT), once per instruction-set path
// (direct_conv.inl compiled by direct_conv_portable.cpp, _avx2.cpp and
// _avx512.cpp), chosen like the row kernels by cpu::active_isa().
//
// A tile is `block_pixels` consecutive output pixels of one row times one
// block of `block_k` output channels (two vector registers), held in
// registers while the sum runs over every filter tap and input channel: per
// channel two vector loads of the packed filter, one broadcast of each
// pixel's input and two fused multiply-adds per pixel, the ratio of a Gemm
// micro-kernel, without unrolling the patches into memory first.
#pragma once

#include <cstdint>

#include "tunekit/cpu/isa.hpp"

namespace tunekit::engines::detail {

// One run of output pixels of one output row and one channel block. NHWC:
// the pixels of a row are `pixel_step` floats apart in X (stride x C) and
// `y_pixel_step` (K) in Y.
struct DirectConvRow {
  // Per tap (filter position): X at the first pixel's input for that tap,
  // offset to the group's first input channel.
  const float* const* taps = nullptr;
  // Per tap, in the order of `taps`: the block's filter for it, channels x
  // block_k floats, zeros past the group's last output channel.
  const float* const* tap_weights = nullptr;
  std::int64_t tap_count = 0;
  std::int64_t channels = 0;  // input channels of the group
  std::int64_t pixel_step = 0;
  std::int64_t pixels = 0;
  float* y = nullptr;  // the first pixel's first channel of the block
  std::int64_t y_pixel_step = 0;
  std::int64_t valid_k = 0;      // channels of the (last) block to store (at most block_k)
  // Depthwise only: blocks of block_k channels run per tile of pixels, one
  // after the other, each block_k channels further in X, Y and the bias and
  // `block_weight_step` floats further in the filter; all but the last are
  // whole. Running a pixel's every channel together reads X and writes Y
  // contiguously, as NHWC lays them out.
  std::int64_t channel_blocks = 1;
  std::int64_t block_weight_step = 0;
  // Depthwise: when positive, the taps are whole filter rows of `tap_columns`
  // taps each (the interior pixels), and a tile prefetches what the rightmost
  // tap of each filter row reads for the next tile of pixels: the lines no
  // tile has read yet, which the hardware prefetchers miss because the tiles
  // walk X along channels and pixels at once.
  std::int64_t tap_columns = 0;
  // Adds the sums to what Y holds (a later part of the input channels).
  bool accumulate = false;
  // The last part: the bias (block_k floats, zeros past valid_k) and the relu
  // are applied before the store.
  const float* bias = nullptr;
  bool relu = false;
  // Grouped tiles only (grouped_row): floats between one group's outputs
  // and the next's in Y (the output channels per group), and the groups of
  // the lane block that belong to Y (the last block may have fewer).
  std::int64_t y_group_step = 0;
  std::int64_t valid_lanes = 0;
};

struct DirectConvKernels {
  int block_k;       // output channels per tile: two vectors
  int block_pixels;  // output pixels per tile
  void (*row)(const DirectConvRow& row);
  // The same for a depthwise convolution (one input and one output channel
  // per group): the lanes are consecutive channels (groups) of one pixel,
  // a tap's filter is block_k floats per block, `channels` is not read.
  void (*depthwise_row)(const DirectConvRow& row);
  // Grouped tiles, for groups of few channels (which the tiles above run
  // with most of their lanes idle: 4 output channels per group fill 4 of 32):
  // the lanes are `group_lanes` consecutive groups instead, X read from a
  // copy whose channels are ordered [lane block][input channel of the
  // group][group_lanes groups], so that one vector load gives one channel of
  // each of the block's groups, and a tap's filter is channels x J vectors,
  // J = 2^i output channels of every group (grouped_row[i], i = 0, 1, 2).
  // The sums are transposed back to Y's order in registers before the store.
  // The taps include the tile's lane block's offset; `channels` is the
  // input channels per group; bias (when set) J vectors in the filter's order.
  int group_lanes;
  void (*grouped_row[3])(const DirectConvRow& row);
  // One pixel's channels of every group (`channels_per_group` each, groups
  // after each other as X holds them) in the grouped tiles' order at `to`:
  // [lane block][channel][group_lanes], zeros past the last group.
  void (*channels_to_lanes)(const float* from, float* to, std::int64_t channels_per_group, std::int64_t groups);
};

const DirectConvKernels& direct_conv_kernels_portable() noexcept;
const DirectConvKernels& direct_conv_kernels_avx2() noexcept;
const DirectConvKernels& direct_conv_kernels_avx512() noexcept;

// The path of `isa`.
const DirectConvKernels& direct_conv_kernels(cpu::CpuIsa isa) noexcept;

}  // namespace tunekit::engines::detail
