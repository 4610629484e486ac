// The launch functions of the GPU kernels (compiled by hipcc in *.hip),
// callable from host code built by the default compiler: plain structures and
// C++ functions with no HIP types, the stream passed as the runtime's handle
// (platform::Stream::native_handle()). Each returns a hipError_t value: 0 when
// the launch was accepted.
#pragma once

#include <cstdint>

namespace tunekit::hip_kernels {

// The epilogue applied to each output element: y = activation(x + bias).
enum class Activation : int { NONE = 0, RELU = 1, GELU = 2, SIGMOID = 3, TANH = 4 };

// C [batch][m][n] = A [batch][m][k] x B [batch][k][n], row-major with leading
// dimensions; a transposed operand is stored as its transpose. A batch stride
// of 0 uses one matrix for every batch. bias (n values, or null) is added to
// every row of C before the activation.
struct MatmulArgs {
  std::int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  std::int64_t lda = 0;
  bool a_transposed = false;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  bool b_transposed = false;
  float* c = nullptr;
  std::int64_t ldc = 0;
  const float* bias = nullptr;
  Activation activation = Activation::NONE;
  std::int64_t batch = 1;
  std::int64_t a_batch_stride = 0, b_batch_stride = 0, c_batch_stride = 0;
};

// A block computes a tile_m x tile_n tile of C with threads_per_block
// threads, stepping through k by tile_k in shared memory; split_k blocks
// share one tile's k range and their partial sums are added by a second
// kernel (in the workspace: split_k x batch x m x n floats).
struct MatmulTile {
  int tile_m = 64, tile_n = 64, tile_k = 16, threads_per_block = 256, split_k = 1;
};

// Whether a kernel of this tile shape was compiled (matmul_tiled launches
// only those); the knobs allow more combinations than are compiled.
bool matmul_tile_compiled(const MatmulTile& tile);
std::int64_t matmul_tiled_workspace_bytes(const MatmulArgs& args, const MatmulTile& tile);

int matmul_naive(const MatmulArgs& args, void* stream);
int matmul_tiled(const MatmulArgs& args, const MatmulTile& tile, float* workspace, void* stream);

// A chain of pointwise operations over one output shape, run in one pass:
// each thread reads its element of every input tensor, applies the steps in
// registers and writes the written tensors. Tensor t's element for output
// element i is data[t][i % period[t]] (broadcast along leading dims).
inline constexpr int kMaxPointwiseTensors = 12;
inline constexpr int kMaxPointwiseSteps = 10;
enum class PointwiseOp : int {
  IDENTITY,
  NEG,
  ABS,
  EXP,
  LOG,
  SQRT,
  RELU,
  SIGMOID,
  TANH,
  GELU,
  ADD,
  SUB,
  MUL,
  DIV,
  MAX,
  MIN
};
struct PointwiseProgram {
  std::int64_t elements = 0;
  int tensor_count = 0;
  const float* inputs[kMaxPointwiseTensors] = {};  // null for a tensor a step writes
  float* outputs[kMaxPointwiseTensors] = {};       // null unless the tensor is written to memory
  std::int64_t period[kMaxPointwiseTensors] = {};
  int step_count = 0;
  PointwiseOp op[kMaxPointwiseSteps] = {};
  int in0[kMaxPointwiseSteps] = {}, in1[kMaxPointwiseSteps] = {}, out[kMaxPointwiseSteps] = {};
};
int pointwise(const PointwiseProgram& program, int threads_per_block, int items_per_thread, void* stream);

// Y [outer][inner] = reduce over X [outer][reduced][inner].
enum class ReductionOp : int { SUM, MEAN, MAX, MIN, PROD, NORM2 };
struct ReductionArgs {
  ReductionOp op = ReductionOp::SUM;
  std::int64_t outer = 1, reduced = 1, inner = 1;
  const float* x = nullptr;
  float* y = nullptr;
};
int reduction(const ReductionArgs& args, int threads_per_block, void* stream);

// 2-D convolution as an implicit Gemm: M = N*P*Q output pixels, N = K output
// channels (per group), K = C/groups*R*S, the input gathered into the tile as
// it is loaded (no im2col buffer). NCHW or NHWC input and output, KCRS filter;
// bias per output channel and relu after.
struct ConvArgs {
  std::int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, p = 0, q = 0, groups = 1;
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  bool nhwc = false;
  const float* x = nullptr;
  const float* filter = nullptr;
  const float* bias = nullptr;
  bool relu = false;
  float* y = nullptr;
};
// Tiles of the implicit Gemm: tile_m output pixels by tile_n channels, tile_k
// reduction elements per step (split_k is not used).
int conv_implicit_gemm(const ConvArgs& args, const MatmulTile& tile, void* stream);
// The tiles conv_implicit_gemm was compiled for: conv_tile(i) for i < conv_tile_count().
int conv_tile_count();
MatmulTile conv_tile(int index);

// hipGetErrorName and hipGetErrorString of a status these functions returned.
const char* status_name(int status);
const char* status_text(int status);
// The HIP version the kernels were compiled with, e.g. "5.2.21153".
const char* compiled_hip_version();

}  // namespace tunekit::hip_kernels
