// The graphs the CPU matmul engines run: one matmul C = A x B of rank
// 2, or a batch of them (rank 3: C [batch, M, N], A and B either a batch of
// as many or one matrix for every batch), optionally followed by a bias added
// along C's rows (a [1, N], [N] or [1, 1, N] tensor) and then one activation,
// each step reading the one before it through a virtual tensor. Every provider (tunekit's Gemm, OpenBLAS, BLIS)
// matches the same pattern and applies the same epilogue, so their results
// differ only by the product's rounding. A, B, the bias and the output
// share one element type: float for every engine, bfloat16 for those that
// run it (match_matmul_of); the steps between them compute in float.
#pragma once

#include <cstdint>
#include <initializer_list>
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
  DataType type = DataType::FLOAT;  // of A, B, the bias and the output
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
  // "matmul 128x4096x1024 (A, B^T) + bias + gelu", " bfloat16" after the
  // dims when the type is not float.
  std::string describe() const;
};

// The pattern of `graph` in one of `types` (float or bfloat16);
// NOT_SUPPORTED with the reason when the graph is anything else (another
// operation, another type, a broadcast batch, a layout with no unit stride).
Result<MatmulPattern> match_matmul_of(const graph::OperationGraph& graph, std::initializer_list<DataType> types);
// The float pattern: what an engine that runs float only matches.
Result<MatmulPattern> match_matmul(const graph::OperationGraph& graph);

// The buffers of the pattern's tensors in a variant pack, as elements of T:
// float for FLOAT, the bit patterns (std::uint16_t) for BFLOAT16.
template <typename T>
struct MatmulBuffersOf {
  const T* a = nullptr;
  const T* b = nullptr;
  const T* bias = nullptr;
  T* c = nullptr;
  // The matrices of batch `index`.
  MatmulBuffersOf at_batch(const MatmulPattern& p, std::int64_t index) const {
    return {a + index * p.a_batch_stride, b + index * p.b_batch_stride, bias, c + index * p.c_batch_stride};
  }
};
using MatmulBuffers = MatmulBuffersOf<float>;
using Bfloat16MatmulBuffers = MatmulBuffersOf<std::uint16_t>;

// INVALID_VALUE naming the first tensor missing from the pack, or the
// pattern's type when T is not its element type.
template <typename T>
Result<MatmulBuffersOf<T>> find_buffers_of(const MatmulPattern& pattern, const graph::VariantPack& pack);
extern template Result<MatmulBuffers> find_buffers_of<float>(const MatmulPattern&, const graph::VariantPack&);
extern template Result<Bfloat16MatmulBuffers> find_buffers_of<std::uint16_t>(const MatmulPattern&,
                                                                            const graph::VariantPack&);
inline Result<MatmulBuffers> find_buffers(const MatmulPattern& pattern, const graph::VariantPack& pack) {
  return find_buffers_of<float>(pattern, pack);
}

}  // namespace tunekit::engines
