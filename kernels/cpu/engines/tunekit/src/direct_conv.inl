// The direct convolution's register tiles written once over a vector policy
// S (T, V, kLanes, zero, load, set1, fma, max, add, store), included by
// direct_conv_portable.cpp, _avx2.cpp and _avx512.cpp inside their anonymous
// namespace after they define S and kPixels (pixels per tile), so that each
// copy is compiled for its file's instruction set. It includes nothing.

constexpr int kBlockK = 2 * S::kLanes;

template <int NP>
[[gnu::always_inline]] inline void finish(const DirectConvRow& a, std::int64_t first, typename S::V* c0,
                                          typename S::V* c1);

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
  finish<NP>(a, first, c0, c1);
}

// The tile's sums c0 (the block's first vector of channels) and c1 of NP
// pixels from `first`: plus what Y holds when accumulating, then the bias
// and relu, then the store of the block's valid channels.
template <int NP>
[[gnu::always_inline]] inline void finish(const DirectConvRow& a, std::int64_t first, typename S::V* c0,
                                          typename S::V* c1) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  float* y = a.y + first * a.y_pixel_step;
  // The group's last block: only its valid channels belong to Y.
  const bool whole = a.valid_k == kBlockK;
  float staged[kBlockK] = {};
  if (a.accumulate) {
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      const float* yi = y + i * a.y_pixel_step;
      if (!whole) {
        for (std::int64_t j = 0; j < a.valid_k; ++j) staged[j] = yi[j];
        yi = staged;
      }
      c0[i] = S::add(c0[i], S::load(yi));
      c1[i] = S::add(c1[i], S::load(yi + L));
    }
  }
  if (a.bias != nullptr) {
    const V b0 = S::load(a.bias);
    const V b1 = S::load(a.bias + L);
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
    for (std::int64_t j = 0; j < a.valid_k; ++j) y[i * a.y_pixel_step + j] = staged[j];
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

void row(const DirectConvRow& a) {
  std::int64_t first = 0;
  for (; first + kPixels <= a.pixels; first += kPixels) tile<kPixels>(a, first);
  tail<kPixels - 1>(a, first, a.pixels - first);
}

// Depthwise (one input and one output channel per group): the lanes are
// channels of one pixel instead, so a tile is NP pixels x block_k channels,
// X loaded as vectors, a tap's filter one vector pair. A block of fewer than
// block_k channels (the last; Whole false) reads X through a staged copy,
// so that no load goes past the pixel's channels; that copy is a template
// case of its own, so that the whole blocks keep their sums in registers.
template <int NP, bool Whole>
void depthwise_tile(const DirectConvRow& a, std::int64_t first) {
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
    const V w0 = S::load(a.tap_weights[t]);
    const V w1 = S::load(a.tap_weights[t] + L);
#pragma GCC unroll 16
    for (int i = 0; i < NP; ++i) {
      V x0, x1;
      if constexpr (Whole) {
        x0 = S::load(x + i * step);
        x1 = S::load(x + i * step + L);
      } else {
        float staged[kBlockK] = {};
        for (std::int64_t j = 0; j < a.valid_k; ++j) staged[j] = x[i * step + j];
        x0 = S::load(staged);
        x1 = S::load(staged + L);
      }
      c0[i] = S::fma(x0, w0, c0[i]);
      c1[i] = S::fma(x1, w1, c1[i]);
    }
  }
  finish<NP>(a, first, c0, c1);
}

template <int NP, bool Whole>
void depthwise_tail(const DirectConvRow& a, std::int64_t first, std::int64_t left) {
  if constexpr (NP > 0) {
    if (left == NP) {
      depthwise_tile<NP, Whole>(a, first);
    } else {
      depthwise_tail<NP - 1, Whole>(a, first, left);
    }
  }
}

template <bool Whole>
void depthwise_pixels(const DirectConvRow& a) {
  std::int64_t first = 0;
  for (; first + kPixels <= a.pixels; first += kPixels) depthwise_tile<kPixels, Whole>(a, first);
  depthwise_tail<kPixels - 1, Whole>(a, first, a.pixels - first);
}

void depthwise_row(const DirectConvRow& a) {
  if (a.valid_k == kBlockK) {
    depthwise_pixels<true>(a);
  } else {
    depthwise_pixels<false>(a);
  }
}
