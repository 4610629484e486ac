// The graphs the CPU matmul engines run: one float matmul C = A x B of rank
// 2, or a batch of them (rank 3: C [batch, M, N], A and B either a batch of
// as many or one matrix for every batch), optionally followed by a bias added
// along C's rows (a [1, N], [N] or [1, 1, N] tensor) and then one activation,
// each step reading the one before it through a virtual tensor. Every provider (tunekit's Gemm, OpenBLAS, BLIS)
// matches the same pattern and applies the same epilogue, so their results
// differ only by the product's rounding.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"

namespace tunekit::engines {

enum class Activation { NONE, RELU, GELU, SIGMOID, TANH };
std::string_view to_string(Activation activation) noexcept;  // "none", "relu", ...

// A matrix operand as BLAS sees it: row-major with leading dimension ld, or
// its transpose (the tensor's stride of dim 0 is 1).
struct MatrixOperand {
  std::int64_t uid = -1;
  bool transposed = false;
  std::int64_t ld = 0;
};

struct MatmulPattern {
  std::int64_t m = 0, n = 0, k = 0;
  MatrixOperand a, b;
  std::int64_t c_uid = -1;  // the graph's output: the product or its epilogue
  std::int64_t ldc = 0;     // C is row-major
  std::int64_t bias_uid = -1;  // -1: no bias
  Activation activation = Activation::NONE;
  // A batch of products: elements between one batch's matrix and the next
  // (0: the same matrix for every batch). batch is 1 for rank 2.
  std::int64_t batch = 1;
  std::int64_t a_batch_stride = 0, b_batch_stride = 0, c_batch_stride = 0;

  bool has_epilogue() const noexcept { return bias_uid >= 0 || activation != Activation::NONE; }
  // "matmul 128x4096x1024 (A, B^T) + bias + gelu".
  std::string describe() const;
};

// The pattern of `graph`; NOT_SUPPORTED with the reason when the graph is
// anything else (another operation, another type, a broadcast batch, a
// layout with no unit stride).
Result<MatmulPattern> match_matmul(const graph::OperationGraph& graph);

// The buffers of the pattern's tensors in a variant pack; INVALID_VALUE naming
// the first one missing.
struct MatmulBuffers {
  const float* a = nullptr;
  const float* b = nullptr;
  const float* bias = nullptr;
  float* c = nullptr;
  // The matrices of batch `index`.
  MatmulBuffers at_batch(const MatmulPattern& pattern, std::int64_t index) const;
};
Result<MatmulBuffers> find_buffers(const MatmulPattern& pattern, const graph::VariantPack& pack);

}  // namespace tunekit::engines
