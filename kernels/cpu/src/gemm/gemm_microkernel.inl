// The register-blocked micro-kernel written once over a vector policy S,
// included by gemm_microkernel_avx512.cpp and gemm_microkernel_avx2.cpp inside
// their anonymous namespace, after they define kMr (rows of the tile) and the
// policies F32 and F64 (T, V, kLanes, zero, load, set1, fma, mul, store), so
// that each copy is compiled for its file's instruction set (tunekit/cpu/isa.hpp).
// The tile is kMr rows of two vectors; the loops over its rows are unrolled
// fully (12 is the largest kMr). A tile of fewer rows (the last row block, and
// every tile of a product of fewer rows than kMr, such as a matrix-vector
// product) runs a copy compiled for its row count R, so that it does not
// multiply the zeros A's panel is padded with (a product of one row did kMr
// times its work). Its includer includes <algorithm> and <utility>.

template <typename S, int R>
void kernel(std::int64_t k, const typename S::T* a, const typename S::T* b, std::int64_t rs_b, typename S::T* c,
            std::int64_t ldc, typename S::T alpha, typename S::T beta, const typename S::T* bias, bool relu) {
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V c0[R], c1[R];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    c0[i] = S::zero();
    c1[i] = S::zero();
  }
  // The tile of C is read (beta != 0) or written only after the k loop: ask
  // for its lines now, so that they arrive while the loop runs instead of
  // stalling the stores (or the loads) at its end.
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    __builtin_prefetch(c + i * ldc, 1, 3);
    __builtin_prefetch(c + i * ldc + 2 * L - 1, 1, 3);
  }
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < k; ++p) {
    // B rows further down the panel: a streamed B (rs_b = ldb) is not contiguous.
    _mm_prefetch(reinterpret_cast<const char*>(b + 32 * rs_b), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 32 * rs_b + L), _MM_HINT_T0);
    const V b0 = S::load(b);
    const V b1 = S::load(b + L);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const V ai = S::set1(a[i]);
      c0[i] = S::fma(ai, b0, c0[i]);
      c1[i] = S::fma(ai, b1, c1[i]);
    }
    a += kMr;  // the panel's rows: R of them are this tile's
    b += rs_b;
  }
  const V va = S::set1(alpha);
  if (beta == typename S::T(0)) {
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      c0[i] = S::mul(va, c0[i]);
      c1[i] = S::mul(va, c1[i]);
    }
  } else {
    const V vb = S::set1(beta);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const typename S::T* row = c + i * ldc;
      c0[i] = S::fma(va, c0[i], S::mul(vb, S::load(row)));
      c1[i] = S::fma(va, c1[i], S::mul(vb, S::load(row + L)));
    }
  }
  // The epilogue on the registers, before the only store of the tile: the
  // sums are rounded as a product stored and then read back would be.
  if (bias != nullptr) {
    const V b0 = S::load(bias);
    const V b1 = S::load(bias + L);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      c0[i] = S::add(c0[i], b0);
      c1[i] = S::add(c1[i], b1);
    }
  }
  if (relu) {
    // max with 0 as the second operand: a NaN or -0 becomes 0, as x > 0 ? x : 0 gives.
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      c0[i] = S::max(c0[i], S::zero());
      c1[i] = S::max(c1[i], S::zero());
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    S::store(c + i * ldc, c0[i]);
    S::store(c + i * ldc + L, c1[i]);
  }
}

// The copy for `rows` (1 to kMr).
template <typename S, int... R>
void kernel_for_rows(std::integer_sequence<int, R...>, std::int64_t k, const typename S::T* a, const typename S::T* b,
                     std::int64_t rs_b, typename S::T* c, std::int64_t ldc, typename S::T alpha, typename S::T beta,
                     std::int64_t rows, const typename S::T* bias, bool relu) {
  using T = typename S::T;
  using Kernel = void (*)(std::int64_t, const T*, const T*, std::int64_t, T*, std::int64_t, T, T, const T*, bool);
  static constexpr Kernel kKernels[] = {kernel<S, R + 1>...};
  kKernels[std::clamp<std::int64_t>(rows, 1, kMr) - 1](k, a, b, rs_b, c, ldc, alpha, beta, bias, relu);
}

void kernel_f32(std::int64_t k, const float* a, const float* b, std::int64_t rs_b, float* c, std::int64_t ldc,
                float alpha, float beta, std::int64_t rows, const float* bias, bool relu) {
  kernel_for_rows<F32>(std::make_integer_sequence<int, kMr>{}, k, a, b, rs_b, c, ldc, alpha, beta, rows, bias, relu);
}
void kernel_f64(std::int64_t k, const double* a, const double* b, std::int64_t rs_b, double* c, std::int64_t ldc,
                double alpha, double beta, std::int64_t rows, const double* bias, bool relu) {
  kernel_for_rows<F64>(std::make_integer_sequence<int, kMr>{}, k, a, b, rs_b, c, ldc, alpha, beta, rows, bias, relu);
}

