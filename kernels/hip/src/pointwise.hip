// A chain of pointwise operations in one pass over memory: the steps run in
// registers, intermediate results never leave the thread.
#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "hip_kernels.hpp"

namespace tunekit::hip_kernels {
namespace {

__device__ inline void run_element(const PointwiseProgram& p, std::int64_t i) {
  float value[kMaxPointwiseTensors];
  for (int t = 0; t < p.tensor_count; ++t) value[t] = p.inputs[t] ? p.inputs[t][i % p.period[t]] : 0.0f;
  for (int s = 0; s < p.step_count; ++s) {
    value[p.out[s]] = device::apply(p.op[s], value[p.in0[s]], p.in1[s] >= 0 ? value[p.in1[s]] : 0.0f);
  }
  for (int t = 0; t < p.tensor_count; ++t) {
    if (p.outputs[t]) p.outputs[t][i] = value[t];
  }
}

// Each thread handles items_per_thread elements a block's width apart, so a
// warp's loads stay contiguous; the grid strides over the rest.
__global__ void pointwise_kernel(PointwiseProgram p, int items_per_thread) {
  const std::int64_t span = static_cast<std::int64_t>(blockDim.x) * items_per_thread;
  for (std::int64_t base = blockIdx.x * span; base < p.elements; base += static_cast<std::int64_t>(gridDim.x) * span) {
    for (int item = 0; item < items_per_thread; ++item) {
      const std::int64_t i = base + item * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
      if (i < p.elements) run_element(p, i);
    }
  }
}

}  // namespace

int pointwise(const PointwiseProgram& program, int threads_per_block, int items_per_thread, void* stream) {
  if (threads_per_block < 1 || threads_per_block > 1024 || items_per_thread < 1) {
    return static_cast<int>(hipErrorInvalidValue);
  }
  const dim3 grid(
      device::blocks_for(program.elements, static_cast<std::int64_t>(threads_per_block) * items_per_thread));
  hipLaunchKernelGGL(pointwise_kernel, grid, dim3(threads_per_block), 0, static_cast<hipStream_t>(stream), program,
                     items_per_thread);
  return static_cast<int>(hipGetLastError());
}

}  // namespace tunekit::hip_kernels
