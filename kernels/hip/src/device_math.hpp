// Device-side element functions shared by the kernels (hipcc only).
#pragma once

#include <hip/hip_runtime.h>

#include "hip_kernels.hpp"

namespace tunekit::hip_kernels::device {

__device__ inline float activate(Activation activation, float x) {
  switch (activation) {
    case Activation::NONE:
      return x;
    case Activation::RELU:
      return x > 0.0f ? x : 0.0f;
    case Activation::GELU:
      return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case Activation::SIGMOID:
      return 1.0f / (1.0f + expf(-x));
    case Activation::TANH:
      return tanhf(x);
  }
  return x;
}

__device__ inline float apply(PointwiseOp op, float a, float b) {
  switch (op) {
    case PointwiseOp::IDENTITY:
      return a;
    case PointwiseOp::NEG:
      return -a;
    case PointwiseOp::ABS:
      return fabsf(a);
    case PointwiseOp::EXP:
      return expf(a);
    case PointwiseOp::LOG:
      return logf(a);
    case PointwiseOp::SQRT:
      return sqrtf(a);
    case PointwiseOp::RELU:
      return a > 0.0f ? a : 0.0f;
    case PointwiseOp::SIGMOID:
      return 1.0f / (1.0f + expf(-a));
    case PointwiseOp::TANH:
      return tanhf(a);
    case PointwiseOp::GELU:
      return 0.5f * a * (1.0f + erff(a * 0.70710678118654752f));
    case PointwiseOp::ADD:
      return a + b;
    case PointwiseOp::SUB:
      return a - b;
    case PointwiseOp::MUL:
      return a * b;
    case PointwiseOp::DIV:
      return a / b;
    case PointwiseOp::MAX:
      return fmaxf(a, b);
    case PointwiseOp::MIN:
      return fminf(a, b);
  }
  return a;
}

// Blocks needed to cover `count` items `per_block` at a time, within the grid
// limit of one dimension (the kernels loop with a grid stride beyond it).
inline unsigned blocks_for(std::int64_t count, std::int64_t per_block) {
  const std::int64_t blocks = (count + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65535 ? 65535 : blocks));
}

}  // namespace tunekit::hip_kernels::device
