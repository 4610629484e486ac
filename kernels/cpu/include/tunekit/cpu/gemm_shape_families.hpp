// The shapes Gemm's calibration times its candidates on, for a memory
// budget (the bytes of A, B and two C matrices one candidate may allocate):
// the calibration and bench_calibrated_vs_default both take them from here,
// so that the benchmark compares configurations on exactly those shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tunekit/measure/comparison.hpp"

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
// largest whose edge x edge x 8 edge product fits; then large_c, wide x wide
// x wide / 2 for the largest wide of {1536, 1024, 768} that fits (none when
// none does): a C too large for the caches, where every depth block's pass
// over C costs, so that deeper blocks show what they save.
std::vector<GemmShapeFamily> gemm_tile_families(std::size_t memory_budget_bytes, std::size_t element_bytes);

// How the tile calibration judges a configuration from its comparison with
// the default on each family (measure::compare_times, the configuration's
// times over the default's, with tie band `tie_band`): it beats the default
// when it is FASTER on at least one family, SLOWER on none and no family's
// ratio of medians exceeds 1 + tie_band, since one set of tiles serves every
// shape; the result is then the geometric mean of the ratios, else nullopt
// (also for no comparisons or a NaN ratio).
std::optional<double> gemm_tiles_beat(std::span<const measure::Comparison> against_default, double tie_band) noexcept;

// A configuration that beat the default: its position among the
// configurations, its score (gemm_tiles_beat) and its size for the tie rule.
struct GemmBeater {
  std::size_t index;
  double score;
  std::int64_t size;
};
struct GemmTiePick {
  std::size_t index;  // the chosen configuration's position
  std::size_t tied;   // beaters other than the leader that tied with it
};
// The calibration tie rule among beaters (at least one): the lowest score
// leads (the first of equal scores); of the leader and every beater that
// `told_apart(beater, leader)` (positions) says the measurements cannot tell
// from it, the smallest size wins, the earlier of equal sizes.
GemmTiePick gemm_pick_by_tie_rule(std::span<const GemmBeater> beaters,
                                  const std::function<bool(std::size_t, std::size_t)>& told_apart);

// N = K of an m-row skinny product: the widest of 4096, 2048, ... (at least
// 64) that fits, so that B comes from memory as a skinny product's does.
std::int64_t gemm_wide_edge(std::size_t memory_budget_bytes, std::int64_t m, std::size_t element_bytes);

// The families of algorithm.streamed_tile_k: M = 8 at the wide edge, and
// M = 16 (the portable skinny-M limit) at the skinny limit's wide edge: a
// depth chosen on the first alone was 9% slower than the default on the
// second.
std::vector<GemmShapeFamily> gemm_streamed_depth_families(std::size_t memory_budget_bytes,
                                                          std::size_t element_bytes);

// N = K of the skinny-M limit's search over M = 4 ... 64: the wide edge of
// M = 64, at most 2048.
std::int64_t gemm_skinny_limit_wide(std::size_t memory_budget_bytes, std::size_t element_bytes);

}  // namespace tunekit::cpu
