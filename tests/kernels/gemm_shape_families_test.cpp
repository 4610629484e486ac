// The shapes Gemm's calibration and bench_calibrated_vs_default share
// (tunekit/cpu/gemm_shape_families.hpp), with exact values per budget.
#include "tunekit/cpu/gemm_shape_families.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

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
  using R = std::vector<double>;
  // 10% faster on large_c, within the margin elsewhere: a win.
  const std::optional<double> score = gemm_tiles_beat(R{1.02, 0.99, 1.0, 0.9}, 0.05);
  ASSERT_TRUE(score.has_value());
  EXPECT_NEAR(*score, std::pow(1.02 * 0.99 * 1.0 * 0.9, 0.25), 1e-12);
  // Exactly the margin counts on either side.
  EXPECT_TRUE(gemm_tiles_beat(R{1.0 + 0.05, 1.0, 1.0, 1.0 - 0.05}, 0.05).has_value());
  // 20% faster on one family but 6% slower on another: no.
  EXPECT_FALSE(gemm_tiles_beat(R{1.06, 1.0, 1.0, 0.8}, 0.05).has_value());
  // Within the margin everywhere: no win anywhere.
  EXPECT_FALSE(gemm_tiles_beat(R{0.97, 0.97, 0.975, 0.975}, 0.05).has_value());
  EXPECT_FALSE(gemm_tiles_beat(R{std::nan(""), 0.5}, 0.05).has_value());
  EXPECT_FALSE(gemm_tiles_beat(R{}, 0.05).has_value());
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
