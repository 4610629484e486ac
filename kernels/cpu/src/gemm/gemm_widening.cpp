// Gemm of FLOAT16 and BFLOAT16 through widening: the stored matrices are
// converted to dense float matrices (exact), the FLOAT packed Gemm runs on
// them with the kernel's GemmPackedTuning, and C is narrowed back once. Each
// conversion is split over the team by elements, not rows, so that a single
// long row (a vector operand) is split too.
#include <omp.h>

#include <algorithm>
#include <fmt/format.h>

#include "gemm_arguments.hpp"
#include "gemm_conversion.hpp"
#include "gemm_workspace.hpp"
#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/team.hpp"

namespace tunekit::cpu {
namespace {

namespace gd = gemm_detail;

thread_local gd::Workspace t_wide_a;
thread_local gd::Workspace t_wide_b;
thread_local gd::Workspace t_wide_c;

// Calls f(row, first column, count) over every run of a rows x cols
// matrix's elements, split into `team` equal parts by element (row-major),
// each part on its own thread.
template <typename F>
void for_each_run(std::int64_t rows, std::int64_t cols, int team, F&& f) {
  const std::int64_t elements = rows * cols;
  run_on_team(team, [&] {
    const std::int64_t parts = omp_get_num_threads();
    const std::int64_t me = omp_get_thread_num();
    std::int64_t begin = elements * me / parts;
    const std::int64_t end = elements * (me + 1) / parts;
    while (begin < end) {
      const std::int64_t row = begin / cols;
      const std::int64_t col = begin % cols;
      const std::int64_t count = std::min(cols - col, end - begin);
      f(row, col, count);
      begin += count;
    }
  });
}

float* buffer(gd::Workspace& workspace, std::int64_t elements, Error& error) {
  const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(elements, 1)) * sizeof(float);
  auto* out = static_cast<float*>(workspace.get(bytes));
  if (!out) error = gd::out_of_memory(bytes);
  return out;
}

}  // namespace

void gemm_detail::widen_matrix(DataType type, const std::uint16_t* src, std::int64_t rows, std::int64_t cols,
                               std::int64_t ld, float* dst, int team) {
  for_each_run(rows, cols, team, [&](std::int64_t row, std::int64_t col, std::int64_t count) {
    (void)widen_to_float_array(type, src + row * ld + col, dst + row * cols + col, count);
  });
}

void gemm_detail::narrow_matrix(DataType type, const float* src, std::int64_t rows, std::int64_t cols,
                                std::uint16_t* dst, std::int64_t ld, int team) {
  for_each_run(rows, cols, team, [&](std::int64_t row, std::int64_t col, std::int64_t count) {
    (void)narrow_float_array(type, src + row * cols + col, dst + row * ld + col, count);
  });
}

int GemmKernel::conversion_threads(std::int64_t elements, int maximum) const noexcept {
  if (maximum <= 1 || elements < widening_.conversion_parallel_minimum_elements) return 1;
  return maximum;
}

Error GemmKernel::run(DataType type, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b,
                      std::int64_t ldb, float beta, std::uint16_t* c, std::int64_t ldc, GemmPath path,
                      int threads) const {
  return run(type, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, WideProductEpilogue{}, path, threads);
}

Error GemmKernel::run(DataType type, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b,
                      std::int64_t ldb, float beta, std::uint16_t* c, std::int64_t ldc,
                      const WideProductEpilogue& before_narrowing, GemmPath path, int threads) const {
  if (type != DataType::FLOAT16 && type != DataType::BFLOAT16) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("Gemm: the widening path takes float16 or bfloat16, not {}", core::to_string(type))};
  }
  if (Error e = gd::check_arguments(ta, tb, m, n, k, lda, ldb, ldc); e.is_bad()) return e;
  if (m == 0 || n == 0) return Error::ok();
  const int maximum = thread_limit(threads);
  // The stored shapes (row-major, before op()).
  const std::int64_t a_rows = ta == Transpose::NO ? m : k, a_cols = ta == Transpose::NO ? k : m;
  const std::int64_t b_rows = tb == Transpose::NO ? k : n, b_cols = tb == Transpose::NO ? n : k;
  const bool reads_ab = alpha != 0.0f && k > 0;
  Error error = Error::ok();
  float* wide_a = buffer(t_wide_a, reads_ab ? a_rows * a_cols : 1, error);
  float* wide_b = buffer(t_wide_b, reads_ab ? b_rows * b_cols : 1, error);
  float* wide_c = buffer(t_wide_c, m * n, error);
  if (error.is_bad()) return error;
  if (reads_ab) {
    gd::widen_matrix(type, a, a_rows, a_cols, lda, wide_a, conversion_threads(a_rows * a_cols, maximum));
    gd::widen_matrix(type, b, b_rows, b_cols, ldb, wide_b, conversion_threads(b_rows * b_cols, maximum));
  }
  // beta == 0: C is only written, as in the FLOAT product.
  if (beta != 0.0f) gd::widen_matrix(type, c, m, n, ldc, wide_c, conversion_threads(m * n, maximum));
  if (Error e = run(ta, tb, m, n, reads_ab ? k : 0, alpha, wide_a, std::max<std::int64_t>(a_cols, 1), wide_b,
                    std::max<std::int64_t>(b_cols, 1), beta, wide_c, n, path, threads);
      e.is_bad()) {
    return e;
  }
  // On the product's team: a product too small for a team has an epilogue too small for one.
  if (before_narrowing) before_narrowing(wide_c, n, choose_threads(m, n, k, maximum));
  gd::narrow_matrix(type, wide_c, m, n, c, ldc, conversion_threads(m * n, maximum));
  return Error::ok();
}

}  // namespace tunekit::cpu
