// The portable micro-kernels: 4 x 8 tiles in plain C++, the path of
// processors without AVX2 and the baseline the vector paths are tested against.
#include "gemm_microkernel.hpp"

#include <cmath>

namespace tunekit::cpu::gemm_detail {
namespace {

constexpr int kMr = 4;
constexpr int kNr = 8;

template <typename T>
void kernel(std::int64_t k, const T* a, const T* b, std::int64_t rs_b, T* c, std::int64_t ldc, T alpha, T beta,
            std::int64_t rows, const T* bias, bool relu) {
  T acc[kMr][kNr] = {};
  for (std::int64_t p = 0; p < k; ++p) {
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kNr; ++j) acc[i][j] += a[i] * b[j];
    }
    a += kMr;
    b += rs_b;
  }
  for (int i = 0; i < kMr && i < rows; ++i) {
    T* row = c + i * ldc;
    for (int j = 0; j < kNr; ++j) {
      T x = beta == T(0) ? alpha * acc[i][j] : std::fma(alpha, acc[i][j], beta * row[j]);
      if (bias != nullptr) x += bias[j];
      row[j] = relu ? (x > T(0) ? x : T(0)) : x;
    }
  }
}

void kernel_f32(std::int64_t k, const float* a, const float* b, std::int64_t rs_b, float* c, std::int64_t ldc,
                float alpha, float beta, std::int64_t rows, const float* bias, bool relu) {
  kernel<float>(k, a, b, rs_b, c, ldc, alpha, beta, rows, bias, relu);
}
void kernel_f64(std::int64_t k, const double* a, const double* b, std::int64_t rs_b, double* c, std::int64_t ldc,
                double alpha, double beta, std::int64_t rows, const double* bias, bool relu) {
  kernel<double>(k, a, b, rs_b, c, ldc, alpha, beta, rows, bias, relu);
}

// One full kMr-row micro-panel of a plain A: 8 columns of the rows at a time
// are read (contiguous in each row) into a small block and written out column
// by column, kMr known at compile time so that the block stays in registers.
template <typename T>
void pack_a(const T* src, std::int64_t lda, std::int64_t kc, T* dst) noexcept {
  constexpr int kColumns = 8;
  std::int64_t q = 0;
  for (; q + kColumns <= kc; q += kColumns) {
    T block[kMr][kColumns];
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kColumns; ++j) block[i][j] = src[i * lda + q + j];
    }
    for (int j = 0; j < kColumns; ++j) {
      for (int i = 0; i < kMr; ++i) dst[(q + j) * kMr + i] = block[i][j];
    }
  }
  for (; q < kc; ++q) {
    for (int i = 0; i < kMr; ++i) dst[q * kMr + i] = src[i * lda + q];
  }
}

void pack_a_f32(const float* src, std::int64_t lda, std::int64_t kc, float* dst) noexcept {
  pack_a<float>(src, lda, kc, dst);
}
void pack_a_f64(const double* src, std::int64_t lda, std::int64_t kc, double* dst) noexcept {
  pack_a<double>(src, lda, kc, dst);
}

template <typename T>
void pack_bt(const T* src, std::int64_t ldb, std::int64_t kc, T* dst) noexcept {
  for (std::int64_t q = 0; q < kc; ++q) {
    for (int j = 0; j < kNr; ++j) dst[q * kNr + j] = src[j * ldb + q];
  }
}

void pack_bt_f32(const float* src, std::int64_t ldb, std::int64_t kc, float* dst) noexcept {
  pack_bt<float>(src, ldb, kc, dst);
}
void pack_bt_f64(const double* src, std::int64_t ldb, std::int64_t kc, double* dst) noexcept {
  pack_bt<double>(src, ldb, kc, dst);
}

// The row-streamed kernel (gemm_row_stream.inl) in plain C++: B in its memory
// order, one row at a time over the whole column range, each B element read
// once for every row of C.
template <typename T>
void row_stream(std::int64_t k, const T* a, std::int64_t rows, const T* b, std::int64_t ldb, T* c, std::int64_t ldc,
                std::int64_t cols) {
  for (std::int64_t q = 0; q < k; ++q) {
    const T* bq = b + q * ldb;
    for (std::int64_t i = 0; i < rows; ++i) {
      const T aq = a[q * rows + i];
      T* row = c + i * ldc;
      for (std::int64_t j = 0; j < cols; ++j) row[j] += aq * bq[j];
    }
  }
}

void row_stream_f32(std::int64_t k, const float* a, std::int64_t rows, const float* b, std::int64_t ldb, float* c,
                    std::int64_t ldc, std::int64_t cols) {
  row_stream<float>(k, a, rows, b, ldb, c, ldc, cols);
}
void row_stream_f64(std::int64_t k, const double* a, std::int64_t rows, const double* b, std::int64_t ldb, double* c,
                    std::int64_t ldc, std::int64_t cols) {
  row_stream<double>(k, a, rows, b, ldb, c, ldc, cols);
}

}  // namespace

MicroKernels portable_microkernels() noexcept {
  return {kMr, kNr, kernel_f32, kMr, kNr, kernel_f64, pack_a_f32, pack_a_f64, pack_bt_f32, pack_bt_f64, row_stream_f32, row_stream_f64};
}

}  // namespace tunekit::cpu::gemm_detail
