// The unblocked serial Gemm that tests and calibration compare every path
// against: one wide-accumulator dot product per element of C.
#include "gemm_arguments.hpp"

namespace tunekit::cpu {
namespace {

template <typename T, typename Acc>
Error reference(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
                std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if (Error e = gemm_detail::check_arguments(ta, tb, m, n, k, lda, ldb, ldc); e.is_bad()) return e;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      Acc sum = 0;
      if (alpha != T(0)) {
        for (std::int64_t p = 0; p < k; ++p) {
          const T x = ta == Transpose::NO ? a[i * lda + p] : a[p * lda + i];
          const T y = tb == Transpose::NO ? b[p * ldb + j] : b[j * ldb + p];
          sum += static_cast<Acc>(x) * static_cast<Acc>(y);
        }
      }
      T& out = c[i * ldc + j];
      const Acc scaled = static_cast<Acc>(alpha) * sum;
      out = static_cast<T>(beta == T(0) ? scaled : scaled + static_cast<Acc>(beta) * static_cast<Acc>(out));
    }
  }
  return Error::ok();
}

}  // namespace

Error gemm_reference(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                     const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                     std::int64_t ldc) {
  return reference<float, double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

Error gemm_reference(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                     const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
                     std::int64_t ldc) {
  return reference<double, long double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tunekit::cpu
