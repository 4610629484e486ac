// Argument rules shared by the packed Gemm and its reference, so both reject
// the same calls with the same messages.
#pragma once

#include <fmt/format.h>

#include <cstdint>

#include "tunekit/cpu/gemm.hpp"

namespace tunekit::cpu::gemm_detail {

inline Error check_arguments(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
                             std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  if (m < 0 || n < 0 || k < 0) {
    return {ErrorCode::INVALID_VALUE, fmt::format("Gemm: negative dimension m={} n={} k={}", m, n, k)};
  }
  // The row length of each stored matrix (row-major).
  const std::int64_t a_row = ta == Transpose::NO ? k : m;
  const std::int64_t b_row = tb == Transpose::NO ? n : k;
  const auto check = [](const char* name, std::int64_t ld, std::int64_t row) -> Error {
    if (ld < 1 || ld < row) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("Gemm: {}={} is smaller than max(1, {}) (the stored row length)", name, ld, row)};
    }
    return Error::ok();
  };
  if (Error e = check("lda", lda, a_row); e.is_bad()) return e;
  if (Error e = check("ldb", ldb, b_row); e.is_bad()) return e;
  return check("ldc", ldc, n);
}

}  // namespace tunekit::cpu::gemm_detail
