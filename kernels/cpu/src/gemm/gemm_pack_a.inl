// Packing of one full kMr-row micro-panel of a row-major A (row i at
// src + i * lda, kc columns) into the micro-kernel's layout [kc][kMr], by
// transposing blocks in registers: 8 columns of float (4 of double) are read
// from each row with one vector load and written as whole k steps, where
// one element at a time cost two memory operations per element (a packing
// of a 4096 x 256 float A took longer than the 64-column product it fed).
// Included by gemm_microkernel_avx512.cpp and gemm_microkernel_avx2.cpp
// inside their anonymous namespace after kMr (12 or 6); it uses AVX
// (256-bit) instructions only, so both files compile the same code.

// Columns [0, 8) of `Rows` rows (8, 4 or 2) as 8 k steps: step p's Rows
// floats go to dst + p * Stride (kMr: a panel of A; NR: a panel of a transposed B).
template <int Rows, int Stride = kMr>
void columns_f32(const float* src, std::int64_t lda, float* dst) noexcept {
  if constexpr (Rows == 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lda);
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    // s_j: rows 0-3 (or 4-7) of column j in the low lane, of column j + 4 in the high one.
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst + 0 * Stride, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(dst + 1 * Stride, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(dst + 2 * Stride, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(dst + 3 * Stride, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(dst + 4 * Stride, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(dst + 5 * Stride, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(dst + 6 * Stride, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(dst + 7 * Stride, _mm256_permute2f128_ps(s3, s7, 0x31));
  } else if constexpr (Rows == 4) {
    const __m256 r0 = _mm256_loadu_ps(src), r1 = _mm256_loadu_ps(src + lda);
    const __m256 r2 = _mm256_loadu_ps(src + 2 * lda), r3 = _mm256_loadu_ps(src + 3 * lda);
    const __m256 a = _mm256_unpacklo_ps(r0, r1), b = _mm256_unpackhi_ps(r0, r1);
    const __m256 c = _mm256_unpacklo_ps(r2, r3), d = _mm256_unpackhi_ps(r2, r3);
    // u_j: column j in the low lane, column j + 4 in the high one.
    const __m256 u[4] = {_mm256_shuffle_ps(a, c, 0x44), _mm256_shuffle_ps(a, c, 0xEE), _mm256_shuffle_ps(b, d, 0x44),
                         _mm256_shuffle_ps(b, d, 0xEE)};
    for (int j = 0; j < 4; ++j) {
      _mm_storeu_ps(dst + j * Stride, _mm256_castps256_ps128(u[j]));
      _mm_storeu_ps(dst + (j + 4) * Stride, _mm256_extractf128_ps(u[j], 1));
    }
  } else {
    static_assert(Rows == 2);
    const __m256 r0 = _mm256_loadu_ps(src), r1 = _mm256_loadu_ps(src + lda);
    // Pairs (r0[j], r1[j]) as 64-bit elements: lo holds columns 0, 1 | 4, 5, hi 2, 3 | 6, 7.
    const __m256d lo = _mm256_castps_pd(_mm256_unpacklo_ps(r0, r1));
    const __m256d hi = _mm256_castps_pd(_mm256_unpackhi_ps(r0, r1));
    const __m128d lo_low = _mm256_castpd256_pd128(lo), lo_high = _mm256_extractf128_pd(lo, 1);
    const __m128d hi_low = _mm256_castpd256_pd128(hi), hi_high = _mm256_extractf128_pd(hi, 1);
    _mm_storel_pd(reinterpret_cast<double*>(dst + 0 * Stride), lo_low);
    _mm_storeh_pd(reinterpret_cast<double*>(dst + 1 * Stride), lo_low);
    _mm_storel_pd(reinterpret_cast<double*>(dst + 2 * Stride), hi_low);
    _mm_storeh_pd(reinterpret_cast<double*>(dst + 3 * Stride), hi_low);
    _mm_storel_pd(reinterpret_cast<double*>(dst + 4 * Stride), lo_high);
    _mm_storeh_pd(reinterpret_cast<double*>(dst + 5 * Stride), lo_high);
    _mm_storel_pd(reinterpret_cast<double*>(dst + 6 * Stride), hi_high);
    _mm_storeh_pd(reinterpret_cast<double*>(dst + 7 * Stride), hi_high);
  }
}

// Columns [0, 4) of `Rows` rows (4 or 2) as 4 k steps of doubles.
template <int Rows, int Stride = kMr>
void columns_f64(const double* src, std::int64_t lda, double* dst) noexcept {
  if constexpr (Rows == 4) {
    const __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + lda);
    const __m256d r2 = _mm256_loadu_pd(src + 2 * lda), r3 = _mm256_loadu_pd(src + 3 * lda);
    // t0: columns 0 | 2 of rows 0-1, t1: columns 1 | 3; t2, t3 the same of rows 2-3.
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst + 0 * Stride, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + 1 * Stride, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * Stride, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * Stride, _mm256_permute2f128_pd(t1, t3, 0x31));
  } else {
    static_assert(Rows == 2);
    const __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + lda);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    _mm_storeu_pd(dst + 0 * Stride, _mm256_castpd256_pd128(t0));
    _mm_storeu_pd(dst + 1 * Stride, _mm256_castpd256_pd128(t1));
    _mm_storeu_pd(dst + 2 * Stride, _mm256_extractf128_pd(t0, 1));
    _mm_storeu_pd(dst + 3 * Stride, _mm256_extractf128_pd(t1, 1));
  }
}

// The row groups of a panel: 12 = 8 + 4 (float) or 4 + 4 + 4 (double),
// 6 = 4 + 2 (both).
void pack_a_f32(const float* src, std::int64_t lda, std::int64_t kc, float* dst) noexcept {
  static_assert(kMr == 12 || kMr == 6);
  std::int64_t q = 0;
  for (; q + 8 <= kc; q += 8) {
    float* out = dst + q * kMr;
    if constexpr (kMr == 12) {
      columns_f32<8>(src + q, lda, out);
      columns_f32<4>(src + 8 * lda + q, lda, out + 8);
    } else {
      columns_f32<4>(src + q, lda, out);
      columns_f32<2>(src + 4 * lda + q, lda, out + 4);
    }
  }
  for (; q < kc; ++q) {
    for (int i = 0; i < kMr; ++i) dst[q * kMr + i] = src[i * lda + q];
  }
}

void pack_a_f64(const double* src, std::int64_t lda, std::int64_t kc, double* dst) noexcept {
  static_assert(kMr == 12 || kMr == 6);
  std::int64_t q = 0;
  for (; q + 4 <= kc; q += 4) {
    double* out = dst + q * kMr;
    columns_f64<4>(src + q, lda, out);
    if constexpr (kMr == 12) {
      columns_f64<4>(src + 4 * lda + q, lda, out + 4);
      columns_f64<4>(src + 8 * lda + q, lda, out + 8);
    } else {
      columns_f64<2>(src + 4 * lda + q, lda, out + 4);
    }
  }
  for (; q < kc; ++q) {
    for (int i = 0; i < kMr; ++i) dst[q * kMr + i] = src[i * lda + q];
  }
}

// One full NR-column micro-panel of a transposed B: column j of op(B) is
// row j of the stored matrix (src + j * ldb, kc elements), written as
// [kc][NR], blocks transposed in registers as A's panels are (element by
// element, packing took a fifth of attention's 128 x 128 x 64 products).
void pack_bt_f32(const float* src, std::int64_t ldb, std::int64_t kc, float* dst) noexcept {
  constexpr int kNr = 2 * F32::kLanes;
  std::int64_t q = 0;
  for (; q + 8 <= kc; q += 8) {
    for (int g = 0; g < kNr; g += 8) columns_f32<8, kNr>(src + g * ldb + q, ldb, dst + q * kNr + g);
  }
  for (; q < kc; ++q) {
    for (int j = 0; j < kNr; ++j) dst[q * kNr + j] = src[j * ldb + q];
  }
}

void pack_bt_f64(const double* src, std::int64_t ldb, std::int64_t kc, double* dst) noexcept {
  constexpr int kNr = 2 * F64::kLanes;
  std::int64_t q = 0;
  for (; q + 4 <= kc; q += 4) {
    for (int g = 0; g < kNr; g += 4) columns_f64<4, kNr>(src + g * ldb + q, ldb, dst + q * kNr + g);
  }
  for (; q < kc; ++q) {
    for (int j = 0; j < kNr; ++j) dst[q * kNr + j] = src[j * ldb + q];
  }
}
