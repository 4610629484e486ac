// The register-blocked micro-kernels of the packed Gemm, one set per
// instruction-set path. A micro-kernel multiplies one packed A micro-panel
// (k steps of MR rows, [k][MR]) by one B micro-panel (k rows of NR contiguous
// columns, row p at b + p * rs_b) and writes the MR x NR tile of a row-major C:
//   C = alpha * A*B + beta * C,   C not read when beta == 0,
// for the first `rows` rows of the tile only (rows <= MR: the last row block),
// then, still in registers, + bias (NR values, one per column; none when
// null) and max(., 0) when relu: the Gemm's epilogue on a tile's last depth
// block.
// Plain function pointers and a plain struct, so that the *_avx512.cpp and
// *_avx2.cpp files define nothing that other files instantiate too.
#pragma once

#include <cstdint>

namespace tunekit::cpu::gemm_detail {

using MicroKernelF32 = void (*)(std::int64_t k, const float* a, const float* b, std::int64_t rs_b, float* c,
                                std::int64_t ldc, float alpha, float beta, std::int64_t rows, const float* bias,
                                bool relu);
using MicroKernelF64 = void (*)(std::int64_t k, const double* a, const double* b, std::int64_t rs_b, double* c,
                                std::int64_t ldc, double alpha, double beta, std::int64_t rows, const double* bias,
                                bool relu);

// Packs one full MR-row micro-panel of a row-major (not transposed) A: row i
// at src + i * lda, kc columns, into dst as [kc][MR]. Every path has one.
using PackAF32 = void (*)(const float* src, std::int64_t lda, std::int64_t kc, float* dst) noexcept;
using PackAF64 = void (*)(const double* src, std::int64_t lda, std::int64_t kc, double* dst) noexcept;
// Packs one full NR-column micro-panel of a transposed B (column j of op(B)
// is the stored row src + j * ldb, kc elements) as [kc][NR]. Every path has one.
using PackBtF32 = PackAF32;
using PackBtF64 = PackAF64;

// Adds A' * B to a rows x cols block of C (row i at c + i * ldc), A' packed
// as [k][rows] with alpha applied, row q of B at b + q * ldb: the
// row-streamed path of products of few rows (gemm_row_stream.inl).
using RowStreamF32 = void (*)(std::int64_t k, const float* a, std::int64_t rows, const float* b, std::int64_t ldb,
                              float* c, std::int64_t ldc, std::int64_t cols);
using RowStreamF64 = void (*)(std::int64_t k, const double* a, std::int64_t rows, const double* b, std::int64_t ldb,
                              double* c, std::int64_t ldc, std::int64_t cols);

struct MicroKernels {
  int mr_f32, nr_f32;
  MicroKernelF32 f32;
  int mr_f64, nr_f64;
  MicroKernelF64 f64;
  PackAF32 pack_a_f32;
  PackAF64 pack_a_f64;
  PackBtF32 pack_bt_f32;
  PackBtF64 pack_bt_f64;
  RowStreamF32 row_stream_f32;
  RowStreamF64 row_stream_f64;
};

// The largest MR * NR of any path (the scratch tile of edge tiles).
inline constexpr int kMaxTileElements = 12 * 32;

MicroKernels portable_microkernels() noexcept;
#if defined(TUNEKIT_CPU_X86_PATHS)
MicroKernels avx2_microkernels() noexcept;
MicroKernels avx512_microkernels() noexcept;
#endif

}  // namespace tunekit::cpu::gemm_detail
