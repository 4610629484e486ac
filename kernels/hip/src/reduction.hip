// Reductions of X [outer][reduced][inner] over the middle dim: with inner 1
// (the reduced elements are contiguous) a block reduces one row through
// shared memory; otherwise a thread per output element walks the reduced
// dim, neighbouring threads reading neighbouring elements.
#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "hip_kernels.hpp"

namespace tunekit::hip_kernels {
namespace {

__device__ inline float identity_of(ReductionOp op) {
  switch (op) {
    case ReductionOp::MAX:
      return -INFINITY;
    case ReductionOp::MIN:
      return INFINITY;
    case ReductionOp::PROD:
      return 1.0f;
    default:
      return 0.0f;
  }
}

__device__ inline float combine(ReductionOp op, float acc, float x) {
  switch (op) {
    case ReductionOp::MAX:
      return fmaxf(acc, x);
    case ReductionOp::MIN:
      return fminf(acc, x);
    case ReductionOp::PROD:
      return acc * x;
    case ReductionOp::NORM2:
      return acc + x * x;
    default:
      return acc + x;  // SUM, MEAN
  }
}

// Partial results combine as their own kind: squares are added, not squared again.
__device__ inline float merge(ReductionOp op, float a, float b) {
  return combine(op == ReductionOp::NORM2 ? ReductionOp::SUM : op, a, b);
}

__device__ inline float finish(ReductionOp op, float acc, std::int64_t reduced) {
  if (op == ReductionOp::MEAN) return acc / static_cast<float>(reduced);
  if (op == ReductionOp::NORM2) return sqrtf(acc);
  return acc;
}

// blockDim.x is a power of two (checked by the launcher).
__global__ void reduce_rows_kernel(ReductionArgs g) {
  extern __shared__ float partial[];
  for (std::int64_t row = blockIdx.x; row < g.outer; row += gridDim.x) {
    const float* x = g.x + row * g.reduced;
    float acc = identity_of(g.op);
    for (std::int64_t j = threadIdx.x; j < g.reduced; j += blockDim.x) acc = combine(g.op, acc, x[j]);
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
      if (threadIdx.x < width) partial[threadIdx.x] = merge(g.op, partial[threadIdx.x], partial[threadIdx.x + width]);
      __syncthreads();
    }
    if (threadIdx.x == 0) g.y[row] = finish(g.op, partial[0], g.reduced);
    __syncthreads();
  }
}

__global__ void reduce_columns_kernel(ReductionArgs g) {
  const std::int64_t total = g.outer * g.inner;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t o = e / g.inner, i = e % g.inner;
    const float* x = g.x + o * g.reduced * g.inner + i;
    float acc = identity_of(g.op);
    for (std::int64_t j = 0; j < g.reduced; ++j) acc = combine(g.op, acc, x[j * g.inner]);
    g.y[e] = finish(g.op, acc, g.reduced);
  }
}

}  // namespace

int reduction(const ReductionArgs& args, int threads_per_block, void* stream) {
  if (threads_per_block < 32 || threads_per_block > 1024 || (threads_per_block & (threads_per_block - 1)) != 0) {
    return static_cast<int>(hipErrorInvalidValue);
  }
  const auto s = static_cast<hipStream_t>(stream);
  if (args.inner == 1) {
    hipLaunchKernelGGL(reduce_rows_kernel, dim3(device::blocks_for(args.outer, 1)), dim3(threads_per_block),
                       threads_per_block * sizeof(float), s, args);
  } else {
    hipLaunchKernelGGL(reduce_columns_kernel, dim3(device::blocks_for(args.outer * args.inner, threads_per_block)),
                       dim3(threads_per_block), 0, s, args);
  }
  return static_cast<int>(hipGetLastError());
}

}  // namespace tunekit::hip_kernels
