// The shape families of Gemm's calibration (tunekit/cpu/gemm_shape_families.hpp).
#include "tunekit/cpu/gemm_shape_families.hpp"

#include <algorithm>
#include <cmath>

namespace tunekit::cpu {
namespace {

bool fits(std::size_t budget, const GemmShapeFamily& family, std::size_t element) {
  return gemm_family_bytes(family, element) <= budget;
}

// The largest edge of {512, 384, 256, 128, 64} whose edge x edge x (k_factor
// edge) family fits, else 32.
std::int64_t square_edge(std::size_t budget, std::size_t element, std::int64_t k_factor) {
  for (std::int64_t edge : {512, 384, 256, 128, 64}) {
    if (fits(budget, {"", edge, edge, edge * k_factor, Transpose::NO}, element)) return edge;
  }
  return 32;
}

}  // namespace

std::size_t gemm_family_bytes(const GemmShapeFamily& s, std::size_t element) noexcept {
  return static_cast<std::size_t>(s.m * s.k + s.k * s.n + 2 * s.m * s.n) * element;
}

std::vector<GemmShapeFamily> gemm_tile_families(std::size_t budget, std::size_t element) {
  const std::int64_t edge = square_edge(budget, element, 1);
  const std::int64_t deep = square_edge(budget, element, 8) / 2;
  std::vector<GemmShapeFamily> out = {{"square", edge, edge, edge, Transpose::NO},
                                      {"large_k", deep, deep, 16 * deep, Transpose::NO},
                                      {"transposed_a", edge, edge, edge, Transpose::YES}};
  for (std::int64_t wide : {1536, 1024, 768}) {
    const GemmShapeFamily large_c{"large_c", wide, wide, wide / 2, Transpose::NO};
    if (fits(budget, large_c, element)) {
      out.push_back(large_c);
      break;
    }
  }
  return out;
}

std::optional<double> gemm_tiles_beat(std::span<const measure::Comparison> against_default, double tie_band) noexcept {
  if (against_default.empty()) return std::nullopt;
  bool wins_somewhere = false;
  double log_sum = 0;
  for (const measure::Comparison& c : against_default) {
    if (c.verdict == measure::Verdict::SLOWER || !(c.ratio <= 1.0 + tie_band)) return std::nullopt;  // NaN too
    wins_somewhere = wins_somewhere || c.verdict == measure::Verdict::FASTER;
    log_sum += std::log(c.ratio);
  }
  if (!wins_somewhere) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(against_default.size()));
}

GemmTiePick gemm_pick_by_tie_rule(std::span<const GemmBeater> beaters,
                                  const std::function<bool(std::size_t, std::size_t)>& told_apart) {
  const GemmBeater& leader = *std::min_element(beaters.begin(), beaters.end(),
                                               [](const GemmBeater& x, const GemmBeater& y) { return x.score < y.score; });
  GemmTiePick pick{leader.index, 0};
  std::int64_t smallest = leader.size;
  for (const GemmBeater& beater : beaters) {
    if (beater.index == leader.index || told_apart(beater.index, leader.index)) continue;
    ++pick.tied;
    if (beater.size < smallest || (beater.size == smallest && beater.index < pick.index)) {
      smallest = beater.size;
      pick.index = beater.index;
    }
  }
  return pick;
}

std::int64_t gemm_wide_edge(std::size_t budget, std::int64_t m, std::size_t element) {
  std::int64_t wide = 4096;
  while (wide > 64 && !fits(budget, {"", m, wide, wide, Transpose::NO}, element)) wide /= 2;
  return wide;
}

std::vector<GemmShapeFamily> gemm_streamed_depth_families(std::size_t budget, std::size_t element) {
  const std::int64_t wide = gemm_wide_edge(budget, 8, element);
  const std::int64_t limit_wide = gemm_skinny_limit_wide(budget, element);
  return {{"skinny_m", 8, wide, wide, Transpose::NO}, {"skinny_m", 16, limit_wide, limit_wide, Transpose::NO}};
}

std::int64_t gemm_skinny_limit_wide(std::size_t budget, std::size_t element) {
  return std::min<std::int64_t>(gemm_wide_edge(budget, 64, element), 2048);
}

}  // namespace tunekit::cpu
