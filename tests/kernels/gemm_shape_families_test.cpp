// The shapes Gemm's calibration and bench_calibrated_vs_default share
// (tunekit/cpu/gemm_shape_families.hpp), with exact values per budget.
#include "tunekit/cpu/gemm_shape_families.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "tunekit/tuning/crossover_search.hpp"

namespace tunekit::cpu {
namespace {

constexpr Transpose N = Transpose::NO;
constexpr Transpose T = Transpose::YES;

TEST(GemmShapeFamilies, TileFamiliesAreSquareLargeKTransposedAndLargeCForTheBudget) {
  EXPECT_EQ(gemm_tile_families(std::size_t{512} << 20, 4),
            (std::vector<GemmShapeFamily>{{"square", 512, 512, 512, N},
                                          {"large_k", 256, 256, 4096, N},
                                          {"transposed_a", 512, 512, 512, T},
                                          {"large_c", 1536, 1536, 768, N}}));
  // 1536 x 1536 x 768 doubles: (2 * 1536 * 768 + 2 * 1536^2) * 8 = 54 MiB,
  // over 40 MiB; 1024 x 1024 x 512 takes 24 MiB.
  EXPECT_EQ(gemm_family_bytes({"large_c", 1536, 1536, 768, N}, 8), std::size_t{54} << 20);
  EXPECT_EQ(gemm_tile_families(std::size_t{40} << 20, 8).back(), (GemmShapeFamily{"large_c", 1024, 1024, 512, N}));
  // Below 768 x 768 x 384 (6.75 MiB of floats) there is no large_c family.
  EXPECT_EQ(gemm_tile_families(std::size_t{2} << 20, 4),
            (std::vector<GemmShapeFamily>{{"square", 256, 256, 256, N},
                                          {"large_k", 64, 64, 1024, N},
                                          {"transposed_a", 256, 256, 256, T}}));
  // 512^2 doubles times four matrices is exactly 8 MiB: it fits.
  EXPECT_EQ(gemm_family_bytes({"square", 512, 512, 512, N}, 8), std::size_t{8} << 20);
  EXPECT_EQ(gemm_tile_families(std::size_t{8} << 20, 8),
            (std::vector<GemmShapeFamily>{{"square", 512, 512, 512, N},
                                          {"large_k", 64, 64, 1024, N},
                                          {"transposed_a", 512, 512, 512, T}}));
  EXPECT_EQ(gemm_tile_families(1000, 4), (std::vector<GemmShapeFamily>{{"square", 32, 32, 32, N},
                                                                       {"large_k", 16, 16, 256, N},
                                                                       {"transposed_a", 32, 32, 32, T}}));
}

TEST(GemmShapeFamilies, TilesBeatTheDefaultByWinningOnOneFamilyAndLosingOnNone) {
  using measure::Verdict;
  const auto c = [](double ratio, Verdict verdict) {
    measure::Comparison out;
    out.ratio = ratio;
    out.verdict = verdict;
    return out;
  };
  using C = std::vector<measure::Comparison>;
  const double band = 0.05;
  // Faster on large_c, a tie or undecided elsewhere: a win, scored by the
  // geometric mean of the ratios.
  const C win{c(1.02, Verdict::TIE), c(0.99, Verdict::UNDECIDED), c(1.0, Verdict::TIE), c(0.9, Verdict::FASTER)};
  const std::optional<double> score = gemm_tiles_beat(win, band);
  ASSERT_TRUE(score.has_value());
  EXPECT_NEAR(*score, std::pow(1.02 * 0.99 * 1.0 * 0.9, 0.25), 1e-12);
  // A ratio of exactly 1 + band still counts as not slower.
  EXPECT_TRUE(gemm_tiles_beat(C{c(1.0 + band, Verdict::UNDECIDED), c(0.9, Verdict::FASTER)}, band).has_value());
  // Slower on one family (by the verdict, or by a ratio beyond the band that
  // the comparison could not yet confirm): no.
  EXPECT_FALSE(gemm_tiles_beat(C{c(1.04, Verdict::SLOWER), c(0.8, Verdict::FASTER)}, band).has_value());
  EXPECT_FALSE(gemm_tiles_beat(C{c(1.06, Verdict::UNDECIDED), c(0.8, Verdict::FASTER)}, band).has_value());
  // A low ratio the comparison did not confirm is no win: the interval decides.
  EXPECT_FALSE(gemm_tiles_beat(C{c(0.8, Verdict::UNDECIDED), c(0.97, Verdict::TIE)}, band).has_value());
  EXPECT_FALSE(gemm_tiles_beat(C{c(std::nan(""), Verdict::UNDECIDED), c(0.5, Verdict::FASTER)}, band).has_value());
  EXPECT_FALSE(gemm_tiles_beat(C{}, band).has_value());
}

TEST(GemmShapeFamilies, TilesBeatTheDefaultOnMeasuredSamples) {
  // The verdicts come from compare_times on the samples: 20% faster on one
  // family with 1% noise is FASTER, the same times on another are a tie.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(0.99, 1.01);
  const auto samples = [&](double ms) {
    std::vector<double> out(9);
    for (double& s : out) s = ms * noise(rng);
    return out;
  };
  const measure::ComparisonConfig config = tuning::margin_comparison(0.05);
  const std::vector<measure::Comparison> measured{measure::compare_times(samples(0.8), samples(1.0), config),
                                                  measure::compare_times(samples(2.0), samples(2.0), config)};
  EXPECT_EQ(measured[0].verdict, measure::Verdict::FASTER);
  EXPECT_EQ(measured[1].verdict, measure::Verdict::TIE);
  EXPECT_TRUE(gemm_tiles_beat(measured, config.tie_band).has_value());
  const std::vector<measure::Comparison> slower{measured[0],
                                                measure::compare_times(samples(2.4), samples(2.0), config)};
  EXPECT_FALSE(gemm_tiles_beat(slower, config.tie_band).has_value());
}

TEST(GemmShapeFamilies, TheTieRulePicksTheSmallestOfTheConfigurationsTiedWithTheFastest) {
  // Sizes as tile volumes; positions 1..4 among the configurations.
  const std::vector<GemmBeater> beaters{{1, 0.90, 64 * 256 * 256}, {2, 0.85, 128 * 256 * 512},
                                        {3, 0.86, 96 * 256 * 256}, {4, 0.88, 32 * 128 * 128}};
  // Nothing told apart from the leader (2): the smallest of all, 4, wins.
  const GemmTiePick all_tied = gemm_pick_by_tie_rule(beaters, [](std::size_t, std::size_t) { return false; });
  EXPECT_EQ(all_tied.index, 4u);
  EXPECT_EQ(all_tied.tied, 3u);
  // Every other one told apart: the leader.
  const GemmTiePick none_tied = gemm_pick_by_tie_rule(beaters, [](std::size_t, std::size_t) { return true; });
  EXPECT_EQ(none_tied.index, 2u);
  EXPECT_EQ(none_tied.tied, 0u);
  // Only 3 ties with the leader: 3, smaller than the leader; 4 is slower for sure.
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  const GemmTiePick one_tied = gemm_pick_by_tie_rule(beaters, [&](std::size_t a, std::size_t b) {
    asked.emplace_back(a, b);
    return a != 3;
  });
  EXPECT_EQ(one_tied.index, 3u);
  EXPECT_EQ(one_tied.tied, 1u);
  for (const auto& [a, b] : asked) EXPECT_EQ(b, 2u) << "every beater is compared with the leader";
  // Equal sizes: the earlier; one beater: itself.
  const std::vector<GemmBeater> same{{5, 0.9, 100}, {2, 0.95, 100}};
  EXPECT_EQ(gemm_pick_by_tie_rule(same, [](std::size_t, std::size_t) { return false; }).index, 2u);
  EXPECT_EQ(gemm_pick_by_tie_rule(std::vector<GemmBeater>{{7, 0.5, 9}}, [](std::size_t, std::size_t) { return false; })
                .index,
            7u);
}

TEST(GemmShapeFamilies, WideEdgesHalveUntilTheSkinnyProductFits) {
  // M = 8 at 4096: (8*4096 + 4096^2 + 2*8*4096) floats = 64.4 MiB.
  EXPECT_EQ(gemm_wide_edge(std::size_t{512} << 20, 8, 4), 4096);
  EXPECT_EQ(gemm_wide_edge(std::size_t{64} << 20, 8, 4), 2048);
  EXPECT_EQ(gemm_wide_edge(1000, 8, 4), 64);
  EXPECT_EQ(gemm_streamed_depth_families(std::size_t{8} << 20, 4),
            (std::vector<GemmShapeFamily>{{"skinny_m", 8, 1024, 1024, N}, {"skinny_m", 16, 1024, 1024, N}}));
  EXPECT_EQ(gemm_streamed_depth_families(std::size_t{512} << 20, 4),
            (std::vector<GemmShapeFamily>{{"skinny_m", 8, 4096, 4096, N}, {"skinny_m", 16, 2048, 2048, N}}));
  EXPECT_EQ(gemm_skinny_limit_wide(std::size_t{512} << 20, 4), 2048);
  EXPECT_EQ(gemm_skinny_limit_wide(std::size_t{2} << 20, 4), 512);
  EXPECT_EQ(gemm_skinny_limit_wide(1000, 4), 64);
}

}  // namespace
}  // namespace tunekit::cpu
