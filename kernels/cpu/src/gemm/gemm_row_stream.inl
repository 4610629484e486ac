// The row-streamed kernel of a product of few rows (a matrix-vector product
// and its near kin), written once over a vector policy S (T, V, kLanes, load,
// set1, fma, store) and included by gemm_microkernel_avx512.cpp and
// gemm_microkernel_avx2.cpp inside their anonymous namespace.
//
// It adds A' * B to a block of C, rows x cols: A' is [k][rows] (alpha already
// applied), row q of B is at b + q * ldb. B is read in its memory order, four
// rows side by side, each over the whole column range, so that the hardware
// prefetchers see a few long sequential streams; the rows of C stay in cache
// and each B vector, loaded once, serves every row of C. A tile of the packed
// path reads one cache line of each of streamed_tile_k rows instead, which
// left a one-row product at a quarter of the memory bandwidth.
//
// Every element of C gets the same sequence of fused multiply-adds (one per
// k, in order) whichever chunk of columns it falls in: the vector chunks and
// the scalar tail round alike, so a split of the columns between threads
// changes no bit.

template <typename S, int R>
void row_stream_rows(std::int64_t k, const typename S::T* a, std::int64_t rows, const typename S::T* b,
                     std::int64_t ldb, typename S::T* c, std::int64_t ldc, std::int64_t cols) {
  using T = typename S::T;
  using V = typename S::V;
  constexpr std::int64_t L = S::kLanes;
  // R > 0: the row count known at compile time; R == 0: any count, A' read from memory per row.
  const std::int64_t m = R > 0 ? R : rows;
  std::int64_t q = 0;
  for (; q + 4 <= k; q += 4) {
    const T* b0 = b + q * ldb;
    const T* b1 = b0 + ldb;
    const T* b2 = b1 + ldb;
    const T* b3 = b2 + ldb;
    const T* aq = a + q * m;
    std::int64_t j = 0;
    for (; j + 2 * L <= cols; j += 2 * L) {
      const V x0 = S::load(b0 + j), y0 = S::load(b0 + j + L);
      const V x1 = S::load(b1 + j), y1 = S::load(b1 + j + L);
      const V x2 = S::load(b2 + j), y2 = S::load(b2 + j + L);
      const V x3 = S::load(b3 + j), y3 = S::load(b3 + j + L);
#pragma GCC unroll 4
      for (std::int64_t i = 0; i < m; ++i) {
        T* row = c + i * ldc + j;
        V lo = S::load(row), hi = S::load(row + L);
        const V a0 = S::set1(aq[i]), a1 = S::set1(aq[m + i]), a2 = S::set1(aq[2 * m + i]), a3 = S::set1(aq[3 * m + i]);
        lo = S::fma(a0, x0, lo);
        hi = S::fma(a0, y0, hi);
        lo = S::fma(a1, x1, lo);
        hi = S::fma(a1, y1, hi);
        lo = S::fma(a2, x2, lo);
        hi = S::fma(a2, y2, hi);
        lo = S::fma(a3, x3, lo);
        hi = S::fma(a3, y3, hi);
        S::store(row, lo);
        S::store(row + L, hi);
      }
    }
    for (; j + L <= cols; j += L) {
      const V x0 = S::load(b0 + j), x1 = S::load(b1 + j), x2 = S::load(b2 + j), x3 = S::load(b3 + j);
      for (std::int64_t i = 0; i < m; ++i) {
        T* row = c + i * ldc + j;
        V v = S::load(row);
        v = S::fma(S::set1(aq[i]), x0, v);
        v = S::fma(S::set1(aq[m + i]), x1, v);
        v = S::fma(S::set1(aq[2 * m + i]), x2, v);
        v = S::fma(S::set1(aq[3 * m + i]), x3, v);
        S::store(row, v);
      }
    }
    for (; j < cols; ++j) {
      for (std::int64_t i = 0; i < m; ++i) {
        T& x = c[i * ldc + j];
        x = std::fma(aq[i], b0[j], x);
        x = std::fma(aq[m + i], b1[j], x);
        x = std::fma(aq[2 * m + i], b2[j], x);
        x = std::fma(aq[3 * m + i], b3[j], x);
      }
    }
  }
  for (; q < k; ++q) {
    const T* bq = b + q * ldb;
    const T* aq = a + q * m;
    std::int64_t j = 0;
    for (; j + L <= cols; j += L) {
      const V x = S::load(bq + j);
      for (std::int64_t i = 0; i < m; ++i) S::store(c + i * ldc + j, S::fma(S::set1(aq[i]), x, S::load(c + i * ldc + j)));
    }
    for (; j < cols; ++j) {
      for (std::int64_t i = 0; i < m; ++i) c[i * ldc + j] = std::fma(aq[i], bq[j], c[i * ldc + j]);
    }
  }
}

template <typename S>
void row_stream(std::int64_t k, const typename S::T* a, std::int64_t rows, const typename S::T* b, std::int64_t ldb,
                typename S::T* c, std::int64_t ldc, std::int64_t cols) {
  switch (rows) {
    case 1: return row_stream_rows<S, 1>(k, a, rows, b, ldb, c, ldc, cols);
    case 2: return row_stream_rows<S, 2>(k, a, rows, b, ldb, c, ldc, cols);
    case 3: return row_stream_rows<S, 3>(k, a, rows, b, ldb, c, ldc, cols);
    case 4: return row_stream_rows<S, 4>(k, a, rows, b, ldb, c, ldc, cols);
    default: return row_stream_rows<S, 0>(k, a, rows, b, ldb, c, ldc, cols);
  }
}

void row_stream_f32(std::int64_t k, const float* a, std::int64_t rows, const float* b, std::int64_t ldb, float* c,
                    std::int64_t ldc, std::int64_t cols) {
  row_stream<F32>(k, a, rows, b, ldb, c, ldc, cols);
}
void row_stream_f64(std::int64_t k, const double* a, std::int64_t rows, const double* b, std::int64_t ldb, double* c,
                    std::int64_t ldc, std::int64_t cols) {
  row_stream<F64>(k, a, rows, b, ldb, c, ldc, cols);
}
