// 2-D convolution as an implicit Gemm: the rows of the Gemm are output
// pixels (n, p, q), its columns output channels, its depth (c, r, s) of one
// group; the input patch of a row is gathered straight into the shared tile.
#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "hip_kernels.hpp"

namespace tunekit::hip_kernels {
namespace {

__device__ inline std::int64_t x_index(const ConvArgs& g, std::int64_t n, std::int64_t c, std::int64_t y,
                                       std::int64_t x) {
  return g.nhwc ? ((n * g.h + y) * g.w + x) * g.c + c : ((n * g.c + c) * g.h + y) * g.w + x;
}

__device__ inline std::int64_t y_index(const ConvArgs& g, std::int64_t n, std::int64_t k, std::int64_t p,
                                       std::int64_t q) {
  return g.nhwc ? ((n * g.p + p) * g.q + q) * g.k + k : ((n * g.k + k) * g.p + p) * g.q + q;
}

// blockIdx.x: tile of output channels within the group, blockIdx.y: tile of
// output pixels, blockIdx.z: group.
template <int TM, int TN, int TK, int THREADS>
__global__ __launch_bounds__(THREADS) void conv_kernel(ConvArgs g) {
  constexpr int kPerThread = TM * TN / THREADS;
  __shared__ float x_tile[TK][TM];
  __shared__ float w_tile[TK][TN];
  const int tid = threadIdx.x;
  const std::int64_t group = blockIdx.z;
  const std::int64_t c_per_group = g.c / g.groups, k_per_group = g.k / g.groups;
  const std::int64_t pixels = g.n * g.p * g.q, depth = c_per_group * g.r * g.s;
  const std::int64_t pixel0 = static_cast<std::int64_t>(blockIdx.y) * TM;
  const std::int64_t channel0 = static_cast<std::int64_t>(blockIdx.x) * TN;

  float acc[kPerThread];
  for (int i = 0; i < kPerThread; ++i) acc[i] = 0.0f;
  for (std::int64_t d0 = 0; d0 < depth; d0 += TK) {
    for (int e = tid; e < TM * TK; e += THREADS) {
      const int m = e / TK, kk = e % TK;
      const std::int64_t pixel = pixel0 + m, d = d0 + kk;
      float value = 0.0f;
      if (pixel < pixels && d < depth) {
        const std::int64_t q = pixel % g.q, p = (pixel / g.q) % g.p, n = pixel / (g.q * g.p);
        const std::int64_t s = d % g.s, r = (d / g.s) % g.r, c = group * c_per_group + d / (g.s * g.r);
        const std::int64_t iy = p * g.stride_h - g.pad_h + r * g.dilation_h;
        const std::int64_t ix = q * g.stride_w - g.pad_w + s * g.dilation_w;
        if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) value = g.x[x_index(g, n, c, iy, ix)];
      }
      x_tile[kk][m] = value;
    }
    for (int e = tid; e < TK * TN; e += THREADS) {
      const int kk = e / TN, nn = e % TN;
      const std::int64_t channel = channel0 + nn, d = d0 + kk;
      // KCRS: the depth index (c, r, s) of a group's filter is contiguous.
      w_tile[kk][nn] =
          channel < k_per_group && d < depth ? g.filter[(group * k_per_group + channel) * depth + d] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * THREADS;
        acc[i] += x_tile[kk][e / TN] * w_tile[kk][e % TN];
      }
    }
    __syncthreads();
  }
  for (int i = 0; i < kPerThread; ++i) {
    const int e = tid + i * THREADS;
    const std::int64_t pixel = pixel0 + e / TN, channel = channel0 + e % TN;
    if (pixel >= pixels || channel >= k_per_group) continue;
    const std::int64_t k = group * k_per_group + channel;
    const std::int64_t q = pixel % g.q, p = (pixel / g.q) % g.p, n = pixel / (g.q * g.p);
    float value = acc[i] + (g.bias ? g.bias[k] : 0.0f);
    if (g.relu && value < 0.0f) value = 0.0f;
    g.y[y_index(g, n, k, p, q)] = value;
  }
}

using ConvKernel = void (*)(ConvArgs);
struct ConvEntry {
  int tile_m, tile_n, tile_k, threads;
  ConvKernel kernel;
};

#define TUNEKIT_CONV_TILE(TM, TN, TK, T) \
  ConvEntry { TM, TN, TK, T, &conv_kernel<TM, TN, TK, T> }
// Pixel tiles taller than channel tiles: ResNet layers have far more pixels than channels.
const ConvEntry kConvTiles[] = {
    TUNEKIT_CONV_TILE(64, 32, 8, 128),   TUNEKIT_CONV_TILE(64, 32, 16, 128), TUNEKIT_CONV_TILE(64, 64, 8, 256),
    TUNEKIT_CONV_TILE(64, 64, 16, 256),  TUNEKIT_CONV_TILE(128, 32, 8, 256), TUNEKIT_CONV_TILE(128, 64, 8, 256),
    TUNEKIT_CONV_TILE(128, 64, 16, 256), TUNEKIT_CONV_TILE(32, 32, 8, 64),
};
#undef TUNEKIT_CONV_TILE

}  // namespace

int conv_tile_count() { return static_cast<int>(sizeof(kConvTiles) / sizeof(kConvTiles[0])); }

MatmulTile conv_tile(int index) {
  const ConvEntry& e = kConvTiles[index];
  MatmulTile tile;
  tile.tile_m = e.tile_m;
  tile.tile_n = e.tile_n;
  tile.tile_k = e.tile_k;
  tile.threads_per_block = e.threads;
  return tile;
}

int conv_implicit_gemm(const ConvArgs& args, const MatmulTile& tile, void* stream) {
  const ConvEntry* entry = nullptr;
  for (const ConvEntry& e : kConvTiles) {
    if (e.tile_m == tile.tile_m && e.tile_n == tile.tile_n && e.tile_k == tile.tile_k &&
        e.threads == tile.threads_per_block) {
      entry = &e;
    }
  }
  if (entry == nullptr || args.groups < 1) return static_cast<int>(hipErrorInvalidValue);
  const std::int64_t pixels = args.n * args.p * args.q;
  const dim3 grid(static_cast<unsigned>((args.k / args.groups + tile.tile_n - 1) / tile.tile_n),
                  static_cast<unsigned>((pixels + tile.tile_m - 1) / tile.tile_m), static_cast<unsigned>(args.groups));
  hipLaunchKernelGGL(entry->kernel, grid, dim3(tile.threads_per_block), 0, static_cast<hipStream_t>(stream), args);
  return static_cast<int>(hipGetLastError());
}

}  // namespace tunekit::hip_kernels
