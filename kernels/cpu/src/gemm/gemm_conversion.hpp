// The conversions of the widening Gemm (gemm_widening.cpp), shared with its
// calibration, which times them directly: they are what
// conversion.parallel_minimum_elements decides about.
#pragma once

#include <cstdint>

#include "tunekit/core/data_type.hpp"

namespace tunekit::cpu::gemm_detail {

// rows x cols of a FLOAT16 or BFLOAT16 matrix of leading dimension ld into a
// dense float matrix (exact), split over `team` threads by elements.
void widen_matrix(core::DataType type, const std::uint16_t* src, std::int64_t rows, std::int64_t cols,
                  std::int64_t ld, float* dst, int team);
// A dense float rows x cols matrix into a 16-bit matrix of leading dimension
// ld, rounded to nearest even (NaN stays NaN).
void narrow_matrix(core::DataType type, const float* src, std::int64_t rows, std::int64_t cols, std::uint16_t* dst,
                   std::int64_t ld, int team);

}  // namespace tunekit::cpu::gemm_detail
