// The direct convolution's register tiles written once over a vector policy
// S (T, V, kLanes, zero, load, set1, fma, max, add, store), included by
// direct_conv_portable.cpp, _avx2.cpp and _avx512.cpp inside their anonymous
// namespace after they define S and kPixels (pixels per tile), so that each
// copy is compiled for its file's instruction set. It includes nothing.

constexpr int kBlockK = 2 * S::kLanes;

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
  const float* w = a.weights;
  for (std::int64_t t = 0; t < a.tap_count; ++t) {
    const float* x = a.taps[t] + first * step;
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
  const bool whole = a.valid_k == kBlockK;
  // The group's last block: only its valid channels belong to Y.
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
