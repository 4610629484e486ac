// The direct convolution's register tiles written once over a vector policy
// S (T, V, kLanes, zero, load, set1, fma, max, add, store), included by
// direct_conv_portable.cpp, _avx2.cpp and _avx512.cpp inside their anonymous
// namespace after they define S and kPixels (pixels per tile), so that each
// copy is compiled for its file's instruction set. It includes nothing.

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
  // The group's last block: only its valid channels belong to Y.
  const bool whole = valid_k == kBlockK;
  float staged[kBlockK];
  if (a.accumulate) {
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

// Depthwise (one input and one output channel per group): the lanes are
// channels of one pixel instead, so a tile is NP pixels x block_k channels
// of channel block `block`, X loaded as vectors, a tap's filter one vector
// pair. A block of fewer than block_k channels (the last; Whole false) reads
// X through a staged copy, so that no load goes past the pixel's channels;
// that copy is a template case of its own, so that the whole blocks keep
// their sums in registers.
template <int NP, bool Whole>
void depthwise_tile(const DirectConvRow& a, std::int64_t first, std::int64_t block) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  const std::int64_t offset = block * kBlockK;
  const std::int64_t valid_k = Whole ? kBlockK : a.valid_k;
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
      if constexpr (Whole) {
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
  for (std::int64_t block = 0; block < whole_blocks; ++block) depthwise_tile<NP, true>(a, first, block);
  if (whole_blocks < a.channel_blocks) depthwise_tile<NP, false>(a, first, whole_blocks);
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
