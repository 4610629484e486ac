// The direct convolution's register tiles written once over a vector policy
// S (T, V, kLanes, zero, load, set1, fma, max, add, store, interleave_lo/hi,
// even/odd), included by direct_conv_portable.cpp, _avx2.cpp and _avx512.cpp
// inside their anonymous namespace after they define S, kPixels (pixels per
// tile) and kGroupedAccumulators (the grouped tiles' sums held in
// registers), so that each copy is compiled for its file's instruction set.
// It includes nothing.

constexpr int kBlockK = 2 * S::kLanes;

template <int NP>
[[gnu::always_inline]] inline void finish(const DirectConvRow& a, float* y, const float* bias, std::int64_t valid_k,
                                          typename S::V* c0, typename S::V* c1);

// NP pixels from `first`: the sums over every tap and channel, then the
// bias and relu on the registers, then the store.
template <int NP>
void tile(const DirectConvRow& a, std::int64_t first) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V c0[NP], c1[NP];
#pragma GCC unroll 16
  for (int i = 0; i < NP; ++i) {
    c0[i] = S::zero();
    c1[i] = S::zero();
  }
  const std::int64_t step = a.pixel_step;
  for (std::int64_t t = 0; t < a.tap_count; ++t) {
    const float* x = a.taps[t] + first * step;
    const float* w = a.tap_weights[t];
#pragma GCC unroll 4
    for (std::int64_t ch = 0; ch < a.channels; ++ch) {
      const V w0 = S::load(w);
      const V w1 = S::load(w + L);
      w += kBlockK;
#pragma GCC unroll 16
      for (int i = 0; i < NP; ++i) {
        const V xi = S::set1(x[i * step + ch]);
        c0[i] = S::fma(xi, w0, c0[i]);
        c1[i] = S::fma(xi, w1, c1[i]);
      }
    }
  }
  float* y = a.y + first * a.y_pixel_step;
  if (a.accumulate || a.valid_k != kBlockK) {
    finish<NP>(a, y, a.bias, a.valid_k, c0, c1);
    return;
  }
  // The common case, kept on the registers: a tile of 1x1 filter does only
  // 64 channels of work, and the general finish's round trip of the sums
  // through memory cost a fifth of it.
  if (a.bias != nullptr) {
    const V b0 = S::load(a.bias);
    const V b1 = S::load(a.bias + L);
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      c0[i] = S::add(c0[i], b0);
      c1[i] = S::add(c1[i], b1);
    }
  }
  // Only with ReLU: max passes its second operand for a NaN, and a NaN sum
  // without ReLU must stay NaN.
  if (a.relu) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      c0[i] = S::max(c0[i], S::zero());
      c1[i] = S::max(c1[i], S::zero());
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < NP; ++i) {
    S::store(y + i * a.y_pixel_step, c0[i]);
    S::store(y + i * a.y_pixel_step + L, c1[i]);
  }
}

// The tile's sums c0 (the block's first vector of channels) and c1 of NP
// pixels at `y`: plus what Y holds when accumulating, then the bias (block_k
// floats, zeros past valid_k) and relu, then the store of the block's
// valid_k channels.
template <int NP>
[[gnu::always_inline]] inline void finish(const DirectConvRow& a, float* y, const float* bias, std::int64_t valid_k,
                                          typename S::V* c0, typename S::V* c1) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  // The group's last block: only its valid channels belong to Y; exactly
  // the first vector of them is loaded and stored as a vector.
  const bool whole = valid_k == kBlockK;
  const bool first_vector = valid_k == L;
  float staged[kBlockK];
  if (a.accumulate && first_vector) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) c0[i] = S::add(c0[i], S::load(y + i * a.y_pixel_step));
  } else if (a.accumulate) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      const float* yi = y + i * a.y_pixel_step;
      if (!whole) {
        for (std::int64_t j = 0; j < kBlockK; ++j) staged[j] = j < valid_k ? yi[j] : 0.0f;
        yi = staged;
      }
      c0[i] = S::add(c0[i], S::load(yi));
      c1[i] = S::add(c1[i], S::load(yi + L));
    }
  }
  if (bias != nullptr) {
    const V b0 = S::load(bias);
    const V b1 = S::load(bias + L);
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      c0[i] = S::add(c0[i], b0);
      c1[i] = S::add(c1[i], b1);
    }
  }
  if (a.relu) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      c0[i] = S::max(c0[i], S::zero());
      c1[i] = S::max(c1[i], S::zero());
    }
  }
  if (whole) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      S::store(y + i * a.y_pixel_step, c0[i]);
      S::store(y + i * a.y_pixel_step + L, c1[i]);
    }
    return;
  }
  if (first_vector) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) S::store(y + i * a.y_pixel_step, c0[i]);
    return;
  }
  for (int i = 0; i < NP; ++i) {
    S::store(staged, c0[i]);
    S::store(staged + L, c1[i]);
    for (std::int64_t j = 0; j < valid_k; ++j) y[i * a.y_pixel_step + j] = staged[j];
  }
}

// The last pixels of a row, fewer than a full tile: the tile of their count.
template <int NP>
void tail(const DirectConvRow& a, std::int64_t first, std::int64_t left) {
  if constexpr (NP > 0) {
    if (left == NP) {
      tile<NP>(a, first);
    } else {
      tail<NP - 1>(a, first, left);
    }
  }
}

// A row in as few tiles as it needs, of near-equal width: with X copied
// with its padding, a row of 14 pixels as 7 + 7 instead of 12 + 2, whose
// tile of 2 streams the block's whole filter for 2 pixels.
void row(const DirectConvRow& a) {
  const std::int64_t tiles = (a.pixels + kPixels - 1) / kPixels;
  std::int64_t first = 0;
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t width = (a.pixels - first) / (tiles - t);
    tail<kPixels>(a, first, width);
    first += width;
  }
}

// What a depthwise tile's block of channels holds: both vectors, exactly
// the first (the last block of 144 channels on AVX-512: 16 of 32), or fewer
// channels than that read through a staged copy.
enum class BlockPart { WHOLE, FIRST_VECTOR, STAGED };

// Depthwise (one input and one output channel per group): the lanes are
// channels of one pixel instead, so a tile is NP pixels x block_k channels
// of channel block `block`, X loaded as vectors, a tap's filter one vector
// pair. A block of fewer than block_k channels (the last) loads only its
// first vector when it holds exactly that, else reads X through a staged
// copy, so that no load goes past the pixel's channels; each is a template
// case of its own, so that the whole blocks keep their sums in registers
// (staging a last block of 16 channels of 144 made it cost as much as the
// four whole ones).
template <int NP, BlockPart Part>
void depthwise_tile(const DirectConvRow& a, std::int64_t first, std::int64_t block) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  const std::int64_t offset = block * kBlockK;
  const std::int64_t valid_k = Part == BlockPart::WHOLE ? kBlockK : (Part == BlockPart::FIRST_VECTOR ? L : a.valid_k);
  V c0[NP], c1[NP];
#pragma GCC unroll 16
  for (int i = 0; i < NP; ++i) {
    c0[i] = S::zero();
    c1[i] = S::zero();
  }
  const std::int64_t step = a.pixel_step;
  if (NP == kPixels && a.tap_columns > 0) {
    for (std::int64_t t = a.tap_columns - 1; t < a.tap_count; t += a.tap_columns) {
      const float* next = a.taps[t] + (first + NP) * step + offset;
#pragma GCC unroll 16
      for (int i = 0; i < NP; ++i) __builtin_prefetch(next + i * step);
    }
  }
  for (std::int64_t t = 0; t < a.tap_count; ++t) {
    const float* x = a.taps[t] + first * step + offset;
    const float* w = a.tap_weights[t] + block * a.block_weight_step;
    const V w0 = S::load(w);
    const V w1 = S::load(w + L);
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      V x0, x1;
      if constexpr (Part == BlockPart::FIRST_VECTOR) {
        c0[i] = S::fma(S::load(x + i * step), w0, c0[i]);
        continue;
      } else if constexpr (Part == BlockPart::WHOLE) {
        x0 = S::load(x + i * step);
        x1 = S::load(x + i * step + L);
      } else {
        float staged[kBlockK] = {};
        for (std::int64_t j = 0; j < valid_k; ++j) staged[j] = x[i * step + j];
        x0 = S::load(staged);
        x1 = S::load(staged + L);
      }
      c0[i] = S::fma(x0, w0, c0[i]);
      c1[i] = S::fma(x1, w1, c1[i]);
    }
  }
  finish<NP>(a, a.y + first * a.y_pixel_step + offset, a.bias != nullptr ? a.bias + offset : nullptr, valid_k, c0,
             c1);
}

// NP pixels from `first`, every channel block in turn.
template <int NP>
void depthwise_pixels(const DirectConvRow& a, std::int64_t first) {
  const std::int64_t whole_blocks = a.valid_k == kBlockK ? a.channel_blocks : a.channel_blocks - 1;
  for (std::int64_t block = 0; block < whole_blocks; ++block) depthwise_tile<NP, BlockPart::WHOLE>(a, first, block);
  if (whole_blocks == a.channel_blocks) return;
  if (a.valid_k == S::kLanes) {
    depthwise_tile<NP, BlockPart::FIRST_VECTOR>(a, first, whole_blocks);
  } else {
    depthwise_tile<NP, BlockPart::STAGED>(a, first, whole_blocks);
  }
}

template <int NP>
void depthwise_tail(const DirectConvRow& a, std::int64_t first, std::int64_t left) {
  if constexpr (NP > 0) {
    if (left == NP) {
      depthwise_pixels<NP>(a, first);
    } else {
      depthwise_tail<NP - 1>(a, first, left);
    }
  }
}

void depthwise_row(const DirectConvRow& a) {
  std::int64_t first = 0;
  for (; first + kPixels <= a.pixels; first += kPixels) depthwise_pixels<kPixels>(a, first);
  depthwise_tail<kPixels - 1>(a, first, a.pixels - first);
}

// Grouped tiles (DirectConvKernels::grouped_row): lanes are groups.

// N vectors whose lane l is group l's value j (v[j]) in the order Y holds
// them, group after group: rounds of interleaving, each pairing vector i
// with vector i + N/2 (log2 N rounds, N a power of two).
template <int N>
[[gnu::always_inline]] inline void groups_to_memory_order(typename S::V* v) {
  using V = typename S::V;
  for (int round = 1; round < N; round *= 2) {
    V out[N];
#pragma GCC unroll 16
    for (int i = 0; i < N / 2; ++i) {
      out[2 * i] = S::interleave_lo(v[i], v[i + N / 2]);
      out[2 * i + 1] = S::interleave_hi(v[i], v[i + N / 2]);
    }
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) v[i] = out[i];
  }
}

// The inverse: N vectors of memory order (kLanes groups of N values each)
// as vector c = value c of every group.
template <int N>
[[gnu::always_inline]] inline void memory_to_groups_order(typename S::V* v) {
  using V = typename S::V;
  for (int round = 1; round < N; round *= 2) {
    V out[N];
#pragma GCC unroll 16
    for (int i = 0; i < N / 2; ++i) {
      out[i] = S::even(v[2 * i], v[2 * i + 1]);
      out[i + N / 2] = S::odd(v[2 * i], v[2 * i + 1]);
    }
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) v[i] = out[i];
  }
}

// NP pixels from `first` of J output channels of every group of the lane
// block: per tap and input channel, J filter vectors and one input vector
// per pixel, J fused multiply-adds per pixel, no broadcast and no idle lane.
template <int NP, int J>
void grouped_tile(const DirectConvRow& a, std::int64_t first) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V c[NP][J];
#pragma GCC unroll 16
  for (int i = 0; i < NP; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) c[i][j] = S::zero();
  }
  const std::int64_t step = a.pixel_step;
  for (std::int64_t t = 0; t < a.tap_count; ++t) {
    const float* x = a.taps[t] + first * step;
    const float* w = a.tap_weights[t];
    for (std::int64_t ch = 0; ch < a.channels; ++ch) {
      V wj[J];
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) wj[j] = S::load(w + j * L);
      w += J * L;
#pragma GCC unroll 16
      for (int i = 0; i < NP; ++i) {
        const V xi = S::load(x + i * step + ch * L);
#pragma GCC unroll 4
        for (int j = 0; j < J; ++j) c[i][j] = S::fma(xi, wj[j], c[i][j]);
      }
    }
  }
  if (a.bias != nullptr) {
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) {
      const V b = S::load(a.bias + j * L);
#pragma GCC unroll 16
      for (int i = 0; i < NP; ++i) c[i][j] = S::add(c[i][j], b);
    }
  }
  if (a.relu) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) c[i][j] = S::max(c[i][j], S::zero());
    }
  }
  // Whole: the block's every group's J values lie together in Y (J is all
  // of a group's channels), kLanes x J floats in a row.
  const bool whole = a.y_group_step == J && a.valid_lanes == L;
  float* y = a.y + first * a.y_pixel_step;
#pragma GCC unroll 16
  for (int i = 0; i < NP; ++i) {
    groups_to_memory_order<J>(c[i]);
    float* yi = y + i * a.y_pixel_step;
    if (whole) {
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) S::store(yi + j * L, c[i][j]);
      continue;
    }
    float staged[J * L];
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) S::store(staged + j * L, c[i][j]);
    for (std::int64_t l = 0; l < a.valid_lanes; ++l) {
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) yi[l * a.y_group_step + j] = staged[l * J + j];
    }
  }
}

template <int NP, int J>
void grouped_tail(const DirectConvRow& a, std::int64_t first, std::int64_t left) {
  if constexpr (NP > 0) {
    if (left == NP) {
      grouped_tile<NP, J>(a, first);
    } else {
      grouped_tail<NP - 1, J>(a, first, left);
    }
  }
}

// A row in tiles of near-equal width, as row() does.
template <int J>
void grouped_row(const DirectConvRow& a) {
  constexpr int kWidest = kGroupedAccumulators / J < 12 ? kGroupedAccumulators / J : 12;
  const std::int64_t tiles = (a.pixels + kWidest - 1) / kWidest;
  std::int64_t first = 0;
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t width = (a.pixels - first) / (tiles - t);
    grouped_tail<kWidest, J>(a, first, width);
    first += width;
  }
}

template <int N>
void transpose_lane_block(const float* from, float* to) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V v[N];
#pragma GCC unroll 16
  for (int m = 0; m < N; ++m) v[m] = S::load(from + m * L);
  memory_to_groups_order<N>(v);
#pragma GCC unroll 16
  for (int m = 0; m < N; ++m) S::store(to + m * L, v[m]);
}

void channels_to_lanes(const float* from, float* to, std::int64_t channels_per_group, std::int64_t groups) {
  constexpr std::int64_t L = S::kLanes;
  const std::int64_t cg = channels_per_group;
  std::int64_t g0 = 0;
  // Whole lane blocks of a power-of-two channel count in registers.
  for (; g0 + L <= groups; g0 += L, from += L * cg, to += L * cg) {
    switch (cg) {
      case 1: S::store(to, S::load(from)); continue;
      case 2: transpose_lane_block<2>(from, to); continue;
      case 4: transpose_lane_block<4>(from, to); continue;
      case 8: transpose_lane_block<8>(from, to); continue;
      case 16: transpose_lane_block<16>(from, to); continue;
      default: break;
    }
    for (std::int64_t c = 0; c < cg; ++c) {
      for (std::int64_t l = 0; l < L; ++l) to[c * L + l] = from[l * cg + c];
    }
  }
  if (g0 == groups) return;
  // The last, partial block: zeros past the last group.
  for (std::int64_t c = 0; c < cg; ++c) {
    for (std::int64_t l = 0; l < L; ++l) to[c * L + l] = g0 + l < groups ? from[l * cg + c] : 0.0f;
  }
}
