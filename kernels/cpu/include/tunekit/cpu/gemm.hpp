// Gemm of tunekit_cpu: C = alpha * op(A) * op(B) + beta * C for FLOAT and
// DOUBLE, all matrices ROW-MAJOR (element (i, j) of a matrix with leading
// dimension ld at i * ld + j), op(X) = X or its transpose. op(A) is M x K,
// op(B) is K x N, C is M x N. When beta == 0, C is only written (it may hold
// NaN); when alpha == 0 or K == 0, A and B are not read.
//
// Paths: the packed path (B packed in tile_k x tile_n panels, A in tile_m x
// tile_k blocks, register-blocked micro-kernels of the active instruction
// set) and the streamed-B path for few rows of C (M <= skinny_m_limit) or a
// small B (K * N < pack_b_minimum_elements, B not transposed): A is packed
// whole and every B element is read once, in place, streamed_tile_k rows of
// B side by side. Before both, the row-streamed path for the fewest rows
// (M <= row_stream_m_limit, B not transposed: a matrix-vector product and
// its near kin): B is read in its memory order, a few whole rows side by
// side, each element once for all rows of C, which stay in cache; its team
// is chosen as for a product of MR rows, since it reads all of B however few
// its rows (STREAMED_ROWS asked for with B transposed runs STREAMED_B).
// All three run in parallel over
// blocks of C with OpenMP when the product has at least parallel.minimum_tasks
// work units of parallel.fmas_per_work_unit multiply-adds. The parameters are
// declared in kernels/cpu/tuning.toml (GemmPackedTuning).
//
// FLOAT16 and BFLOAT16 (16-bit patterns) go through widening: op(A), op(B)
// and, when beta != 0, C are converted to float exactly, the FLOAT packed
// Gemm of the kernel's configuration computes the product in float, and C is
// rounded once to the element type (nearest even). The conversions run in
// parallel from conversion.parallel_minimum_elements elements of a matrix
// (GemmWideningTuning, its own key per element type: implementation
// "widening"); they need float copies of the three matrices.
//
// The packing and widening buffers are per thread and grow only: a run
// allocates only the first time a thread needs a larger buffer.
//
// GemmKernel::for_session(session, type) is the kernel a program uses: the
// configuration the session resolves for the type, run on the session's
// effective threads.
#pragma once

#include <cstdint>
#include <functional>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/cpu/tuning_defaults.hpp"

namespace tunekit::tuning {
class TuningSession;
}  // namespace tunekit::tuning

namespace tunekit::cpu {

enum class Transpose { NO, YES };
enum class GemmPath { AUTO, PACKED, STREAMED_B, STREAMED_ROWS };

// The tuning key of Gemm for an element type: implementation "packed" for
// FLOAT and DOUBLE, "widening" for FLOAT16 and BFLOAT16 (whose product then
// runs with the FLOAT key's GemmPackedTuning).
tuning::KernelTuningKey gemm_key(DataType type);

// The micro-kernel tile (MR rows x NR columns of C) of the active
// instruction-set path for FLOAT or DOUBLE (DOUBLE's for any other type).
struct GemmRegisterBlock {
  std::int64_t mr, nr;
};
GemmRegisterBlock gemm_register_block(DataType type) noexcept;

class GemmKernel {
 public:
  // Tile sizes are rounded up to the active micro-kernel's register block
  // (the spec's multiple_of rules already make them multiples of every path's).
  // `threads` caps the team of every run that names no cap of its own (0:
  // omp_get_max_threads() at each run).
  explicit GemmKernel(GemmPackedTuning config = {}, GemmWideningTuning widening = {}, int threads = 0) noexcept
      : config_(config), widening_(widening), threads_(threads) {}

  // The Gemm of `type` for a session: the configuration the session
  // resolves (FLOAT, DOUBLE: their "packed" keys; FLOAT16, BFLOAT16: their
  // "widening" key for the conversions and the FLOAT key for the product),
  // running on the session's effective threads. The values are those of the
  // session's execution, so a program that runs at several thread counts
  // creates a session per count (TuningSessionOptions::threads) and a kernel
  // from each. INVALID_VALUE naming the type when Gemm does not implement it;
  // the configuration's error naming the key when a resolved value is rejected.
  static Result<GemmKernel> for_session(const tuning::TuningSession& session, DataType type);

  // `threads` caps the parallel team (0: threads(), see thread_limit()).
  // INVALID_VALUE names the argument when a dimension is negative or a
  // leading dimension is smaller than its matrix's row length (or 0).
  Error run(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
            GemmPath path = GemmPath::AUTO, int threads = 0) const;
  // The epilogue of a FLOAT product, fused into it: each tile of C gets it
  // in the micro-kernel's registers before its only store (on the
  // row-streamed path, each thread's block of C as it completes, in cache):
  //   C = max(alpha * op(A) * op(B) + beta * C + bias, 0)   (max when relu),
  // bias one value per column of C (n floats; null: none), rounded as the
  // product stored and the bias added after would be. A second pass over C
  // cost a 1024 x 64 x 64 product with bias and ReLU a fifth of its time.
  struct Epilogue {
    const float* bias = nullptr;
    bool relu = false;
  };
  Error run(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
            const Epilogue& epilogue, GemmPath path = GemmPath::AUTO, int threads = 0) const;
  Error run(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
            const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
            std::int64_t ldc, GemmPath path = GemmPath::AUTO, int threads = 0) const;
  // FLOAT16 or BFLOAT16 (`type`; INVALID_VALUE for any other) through widening.
  Error run(DataType type, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
            float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b, std::int64_t ldb,
            float beta, std::uint16_t* c, std::int64_t ldc, GemmPath path = GemmPath::AUTO, int threads = 0) const;
  // The same, with `before_narrowing` called on the float product (a dense
  // m x n matrix, leading dimension n) and the product's team
  // (choose_threads(m, n, k, thread limit)) before C is rounded: an epilogue applied there (a bias, an activation) is rounded
  // once with the product instead of after it.
  using WideProductEpilogue = std::function<void(float* c, std::int64_t ldc, int threads)>;
  Error run(DataType type, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
            float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b, std::int64_t ldb,
            float beta, std::uint16_t* c, std::int64_t ldc, const WideProductEpilogue& before_narrowing,
            GemmPath path = GemmPath::AUTO, int threads = 0) const;

  // The team that widens or narrows a matrix of `elements` with at most
  // `maximum` threads (1: serial).
  int conversion_threads(std::int64_t elements, int maximum) const noexcept;

  // The path AUTO takes.
  GemmPath choose_path(std::int64_t m, std::int64_t n, std::int64_t k, Transpose trans_b) const noexcept;
  // The team AUTO uses for m*n*k multiply-adds with at most `maximum` threads (1: serial).
  int choose_threads(std::int64_t m, std::int64_t n, std::int64_t k, int maximum) const noexcept;
  // The most threads a run given `threads` uses: `threads` when positive,
  // else threads() when positive, else omp_get_max_threads().
  int thread_limit(int threads = 0) const noexcept;
  // The team of a run of m*n*k multiply-adds given `threads`:
  // choose_threads(m, n, k, thread_limit(threads)).
  int team(std::int64_t m, std::int64_t n, std::int64_t k, int threads = 0) const noexcept {
    return choose_threads(m, n, k, thread_limit(threads));
  }
  // The cap of runs that name none; 0 when OpenMP's limit applies.
  int threads() const noexcept { return threads_; }
  const GemmPackedTuning& config() const noexcept { return config_; }
  const GemmWideningTuning& widening() const noexcept { return widening_; }

 private:
  GemmPackedTuning config_;
  GemmWideningTuning widening_;
  int threads_;
};

// The serial, unblocked reference: every dot product accumulated in double
// (long double for DOUBLE), the same argument rules and errors as GemmKernel.
// (FLOAT16/BFLOAT16 products are checked against the double-precision
// product of their widened values.)
Error gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                     const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                     std::int64_t ldc);
Error gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                     double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
                     double* c, std::int64_t ldc);

}  // namespace tunekit::cpu
