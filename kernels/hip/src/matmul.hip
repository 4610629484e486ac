// Matmul kernels: a naive one (a thread per element of C) and tiled ones
// whose tile shape, block size and split of k are the engine's knobs.
#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "hip_kernels.hpp"

namespace tunekit::hip_kernels {
namespace {

__device__ inline float load_a(const MatmulArgs& g, const float* a, std::int64_t row, std::int64_t depth) {
  return g.a_transposed ? a[depth * g.lda + row] : a[row * g.lda + depth];
}
__device__ inline float load_b(const MatmulArgs& g, const float* b, std::int64_t depth, std::int64_t col) {
  return g.b_transposed ? b[col * g.ldb + depth] : b[depth * g.ldb + col];
}

__global__ void matmul_naive_kernel(MatmulArgs g) {
  const std::int64_t batch = blockIdx.z;
  const float* a = g.a + batch * g.a_batch_stride;
  const float* b = g.b + batch * g.b_batch_stride;
  float* c = g.c + batch * g.c_batch_stride;
  for (std::int64_t row = blockIdx.y * blockDim.y + threadIdx.y; row < g.m; row += gridDim.y * blockDim.y) {
    for (std::int64_t col = blockIdx.x * blockDim.x + threadIdx.x; col < g.n; col += gridDim.x * blockDim.x) {
      float sum = 0.0f;
      for (std::int64_t p = 0; p < g.k; ++p) sum += load_a(g, a, row, p) * load_b(g, b, p, col);
      if (g.bias) sum += g.bias[col];
      c[row * g.ldc + col] = device::activate(g.activation, sum);
    }
  }
}

// One block per TM x TN tile of C (blockIdx.x: tile column, blockIdx.y: tile
// row, blockIdx.z: batch x split). Thread t owns the elements t, t + THREADS,
// ... of the tile in row-major order, so neighbouring threads write
// neighbouring columns. A is kept transposed in shared memory so that a
// step reads one column of it as a row.
template <int TM, int TN, int TK, int THREADS>
__global__ __launch_bounds__(THREADS) void matmul_tiled_kernel(MatmulArgs g, int split_k, float* partial) {
  constexpr int kPerThread = TM * TN / THREADS;
  __shared__ float a_tile[TK][TM];
  __shared__ float b_tile[TK][TN];
  const int tid = threadIdx.x;
  const std::int64_t batch = blockIdx.z / split_k;
  const int split = static_cast<int>(blockIdx.z % split_k);
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * TM;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * TN;
  const float* a = g.a + batch * g.a_batch_stride;
  const float* b = g.b + batch * g.b_batch_stride;
  // This split's share of k, in whole steps of TK.
  const std::int64_t steps = (g.k + TK - 1) / TK;
  const std::int64_t steps_per_split = (steps + split_k - 1) / split_k;
  const std::int64_t k_begin = split * steps_per_split * TK;
  const std::int64_t k_end = k_begin + steps_per_split * TK < g.k ? k_begin + steps_per_split * TK : g.k;

  float acc[kPerThread];
  for (int i = 0; i < kPerThread; ++i) acc[i] = 0.0f;
  for (std::int64_t k0 = k_begin; k0 < k_end; k0 += TK) {
    for (int e = tid; e < TM * TK; e += THREADS) {
      const int r = e / TK, kk = e % TK;
      const std::int64_t row = row0 + r, depth = k0 + kk;
      a_tile[kk][r] = row < g.m && depth < k_end ? load_a(g, a, row, depth) : 0.0f;
    }
    for (int e = tid; e < TK * TN; e += THREADS) {
      const int kk = e / TN, cc = e % TN;
      const std::int64_t depth = k0 + kk, col = col0 + cc;
      b_tile[kk][cc] = col < g.n && depth < k_end ? load_b(g, b, depth, col) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int e = tid + i * THREADS;
        acc[i] += a_tile[kk][e / TN] * b_tile[kk][e % TN];
      }
    }
    __syncthreads();
  }
  for (int i = 0; i < kPerThread; ++i) {
    const int e = tid + i * THREADS;
    const std::int64_t row = row0 + e / TN, col = col0 + e % TN;
    if (row >= g.m || col >= g.n) continue;
    if (split_k == 1) {
      const float x = acc[i] + (g.bias ? g.bias[col] : 0.0f);
      g.c[batch * g.c_batch_stride + row * g.ldc + col] = device::activate(g.activation, x);
    } else {
      partial[((static_cast<std::int64_t>(split) * g.batch + batch) * g.m + row) * g.n + col] = acc[i];
    }
  }
}

// Adds the split_k partial products of every element, then the epilogue.
__global__ void split_k_sum_kernel(MatmulArgs g, int split_k, const float* partial) {
  const std::int64_t total = g.batch * g.m * g.n;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int s = 0; s < split_k; ++s) sum += partial[s * total + e];
    const std::int64_t col = e % g.n, row = (e / g.n) % g.m, batch = e / (g.n * g.m);
    if (g.bias) sum += g.bias[col];
    g.c[batch * g.c_batch_stride + row * g.ldc + col] = device::activate(g.activation, sum);
  }
}

using TiledKernel = void (*)(MatmulArgs, int, float*);

struct TiledEntry {
  int tile_m, tile_n, tile_k, threads;
  TiledKernel kernel;
};

#define TUNEKIT_TILE(TM, TN, TK, T) \
  TiledEntry { TM, TN, TK, T, &matmul_tiled_kernel<TM, TN, TK, T> }
#define TUNEKIT_TILES_K(TM, TN, T) TUNEKIT_TILE(TM, TN, 8, T), TUNEKIT_TILE(TM, TN, 16, T)
// Every tile whose threads own between 1 and 64 elements each.
const TiledEntry kTiles[] = {
    TUNEKIT_TILES_K(32, 32, 64),   TUNEKIT_TILES_K(32, 32, 128),   TUNEKIT_TILES_K(32, 32, 256),
    TUNEKIT_TILES_K(32, 64, 64),   TUNEKIT_TILES_K(32, 64, 128),   TUNEKIT_TILES_K(32, 64, 256),
    TUNEKIT_TILES_K(64, 32, 64),   TUNEKIT_TILES_K(64, 32, 128),   TUNEKIT_TILES_K(64, 32, 256),
    TUNEKIT_TILES_K(32, 128, 64),  TUNEKIT_TILES_K(32, 128, 128),  TUNEKIT_TILES_K(32, 128, 256),
    TUNEKIT_TILES_K(128, 32, 64),  TUNEKIT_TILES_K(128, 32, 128),  TUNEKIT_TILES_K(128, 32, 256),
    TUNEKIT_TILES_K(64, 64, 64),   TUNEKIT_TILES_K(64, 64, 128),   TUNEKIT_TILES_K(64, 64, 256),
    TUNEKIT_TILES_K(64, 128, 128), TUNEKIT_TILES_K(64, 128, 256),  TUNEKIT_TILES_K(128, 64, 128),
    TUNEKIT_TILES_K(128, 64, 256), TUNEKIT_TILES_K(128, 128, 256),
};
#undef TUNEKIT_TILES_K
#undef TUNEKIT_TILE

const TiledEntry* find_tile(const MatmulTile& t) {
  for (const TiledEntry& e : kTiles) {
    if (e.tile_m == t.tile_m && e.tile_n == t.tile_n && e.tile_k == t.tile_k && e.threads == t.threads_per_block) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

bool matmul_tile_compiled(const MatmulTile& tile) { return find_tile(tile) != nullptr && tile.split_k >= 1; }

std::int64_t matmul_tiled_workspace_bytes(const MatmulArgs& args, const MatmulTile& tile) {
  if (tile.split_k <= 1) return 0;
  return static_cast<std::int64_t>(tile.split_k) * args.batch * args.m * args.n *
         static_cast<std::int64_t>(sizeof(float));
}

int matmul_naive(const MatmulArgs& args, void* stream) {
  const dim3 block(16, 16);
  const dim3 grid(device::blocks_for(args.n, 16), device::blocks_for(args.m, 16), static_cast<unsigned>(args.batch));
  hipLaunchKernelGGL(matmul_naive_kernel, grid, block, 0, static_cast<hipStream_t>(stream), args);
  return static_cast<int>(hipGetLastError());
}

int matmul_tiled(const MatmulArgs& args, const MatmulTile& tile, float* workspace, void* stream) {
  const TiledEntry* entry = find_tile(tile);
  if (entry == nullptr || tile.split_k < 1) return static_cast<int>(hipErrorInvalidValue);
  if (tile.split_k > 1 && workspace == nullptr) return static_cast<int>(hipErrorInvalidValue);
  const auto s = static_cast<hipStream_t>(stream);
  const dim3 grid(static_cast<unsigned>((args.n + tile.tile_n - 1) / tile.tile_n),
                  static_cast<unsigned>((args.m + tile.tile_m - 1) / tile.tile_m),
                  static_cast<unsigned>(args.batch * tile.split_k));
  hipLaunchKernelGGL(entry->kernel, grid, dim3(tile.threads_per_block), 0, s, args, tile.split_k, workspace);
  if (const hipError_t launched = hipGetLastError(); launched != hipSuccess) return static_cast<int>(launched);
  if (tile.split_k > 1) {
    hipLaunchKernelGGL(split_k_sum_kernel, dim3(device::blocks_for(args.batch * args.m * args.n, 256)), dim3(256), 0, s,
                       args, tile.split_k, static_cast<const float*>(workspace));
  }
  return static_cast<int>(hipGetLastError());
}

}  // namespace tunekit::hip_kernels
