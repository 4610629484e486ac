// The shapes Gemm's calibration and bench_calibrated_vs_default share
// (tunekit/cpu/gemm_shape_families.hpp), with exact values per budget.
#include "tunekit/cpu/gemm_shape_families.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tunekit::cpu {
namespace {

constexpr Transpose N = Transpose::NO;
constexpr Transpose T = Transpose::YES;

TEST(GemmShapeFamilies, TileFamiliesAreSquareLargeKAndTransposedForTheBudget) {
  EXPECT_EQ(gemm_tile_families(std::size_t{512} << 20, 4),
            (std::vector<GemmShapeFamily>{{"square", 512, 512, 512, N},
                                          {"large_k", 256, 256, 4096, N},
                                          {"transposed_a", 512, 512, 512, T}}));
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

TEST(GemmShapeFamilies, WideEdgesHalveUntilTheSkinnyProductFits) {
  // M = 8 at 4096: (8*4096 + 4096^2 + 2*8*4096) floats = 64.4 MiB.
  EXPECT_EQ(gemm_wide_edge(std::size_t{512} << 20, 8, 4), 4096);
  EXPECT_EQ(gemm_wide_edge(std::size_t{64} << 20, 8, 4), 2048);
  EXPECT_EQ(gemm_wide_edge(1000, 8, 4), 64);
  EXPECT_EQ(gemm_streamed_depth_family(std::size_t{8} << 20, 4), (GemmShapeFamily{"skinny_m", 8, 1024, 1024, N}));
  EXPECT_EQ(gemm_skinny_limit_wide(std::size_t{512} << 20, 4), 2048);
  EXPECT_EQ(gemm_skinny_limit_wide(std::size_t{2} << 20, 4), 512);
  EXPECT_EQ(gemm_skinny_limit_wide(1000, 4), 64);
}

}  // namespace
}  // namespace tunekit::cpu
