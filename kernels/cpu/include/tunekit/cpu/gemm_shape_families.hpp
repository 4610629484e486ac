// The shapes Gemm's calibration times its candidates on, for a memory
// budget (the bytes of A, B and two C matrices one candidate may allocate):
// the calibration and bench_calibrated_vs_default both take them from here,
// so that the benchmark compares configurations on exactly those shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tunekit/cpu/gemm.hpp"

namespace tunekit::cpu {

struct GemmShapeFamily {
  std::string_view name;
  std::int64_t m, n, k;
  Transpose trans_a;
  friend bool operator==(const GemmShapeFamily&, const GemmShapeFamily&) = default;
};

// A, B and two C matrices (the output and the expected output).
std::size_t gemm_family_bytes(const GemmShapeFamily& family, std::size_t element_bytes) noexcept;

// The tile families: square edge^3, large_k deep x deep x 16 deep and
// transposed_a edge^3 (op(A) = A^T), where edge is the largest of {512, 384,
// 256, 128, 64} (else 32) whose square family fits, and deep half the
// largest whose edge x edge x 8 edge product fits.
std::vector<GemmShapeFamily> gemm_tile_families(std::size_t memory_budget_bytes, std::size_t element_bytes);

// N = K of an m-row skinny product: the widest of 4096, 2048, ... (at least
// 64) that fits, so that B comes from memory as a skinny product's does.
std::int64_t gemm_wide_edge(std::size_t memory_budget_bytes, std::int64_t m, std::size_t element_bytes);

// The family of algorithm.streamed_tile_k: M = 8 at the wide edge.
GemmShapeFamily gemm_streamed_depth_family(std::size_t memory_budget_bytes, std::size_t element_bytes);

// N = K of the skinny-M limit's search over M = 4 ... 64: the wide edge of
// M = 64, at most 2048.
std::int64_t gemm_skinny_limit_wide(std::size_t memory_budget_bytes, std::size_t element_bytes);

}  // namespace tunekit::cpu
