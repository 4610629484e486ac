// The two matmul engines: one kernel class over the graph's shape, whose
// tile (0: the plain i-j-k loops) comes from the engine's knob.
#include <fmt/format.h>

#include <algorithm>

#include "consumer/engines.hpp"

namespace consumer {
namespace {

using tunekit::Error;
using tunekit::ErrorCode;
using tunekit::Result;
namespace graph = tunekit::graph;

struct Shape {
  std::int64_t m = 0, k = 0, n = 0;
};

Error unsupported(std::string why) { return {ErrorCode::NOT_SUPPORTED, std::move(why)}; }

// One matmul of packed row-major float rank-2 tensors, or why not.
Result<Shape> matmul_shape(const graph::OperationGraph& og) {
  if (og.operations().size() != 1 || og.operations()[0].kind != graph::OperationKind::MATMUL) {
    return unsupported("only a graph of a single matmul is supported");
  }
  const graph::Operation& op = og.operations()[0];
  for (const graph::Tensor& t : {op.input("A"), op.input("B"), op.output("C")}) {
    if (!t) return unsupported("the matmul needs tensors on ports A, B and C");
    if (t->get_data_type() != tunekit::DataType::FLOAT) return unsupported("only float tensors are supported");
    if (t->get_dim().size() != 2) return unsupported("only rank-2 matmuls are supported");
    if (t->get_stride() != graph::TensorAttributes::packed_strides(t->get_dim())) {
      return unsupported(fmt::format("{} is not packed row-major", t->describe()));
    }
  }
  return Shape{op.input("A")->get_dim()[0], op.input("A")->get_dim()[1], op.input("B")->get_dim()[1]};
}

void matmul_plain(const Shape& s, const float* a, const float* b, float* c) {
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < s.n; ++j) {
      float sum = 0.0f;
      for (std::int64_t p = 0; p < s.k; ++p) sum += a[i * s.k + p] * b[p * s.n + j];
      c[i * s.n + j] = sum;
    }
  }
}

// tile x tile blocks of C accumulate over tile-deep slices of K; the inner
// loop runs along a row of B and C: contiguous, and vectorised even at -O2
// (omp simd; C and B are distinct buffers of the graph, no aliasing).
void matmul_tiled(const Shape& s, const float* a, const float* b, float* c, std::int64_t tile) {
  std::fill(c, c + s.m * s.n, 0.0f);
  for (std::int64_t i0 = 0; i0 < s.m; i0 += tile) {
    const std::int64_t i1 = std::min(s.m, i0 + tile);
    for (std::int64_t p0 = 0; p0 < s.k; p0 += tile) {
      const std::int64_t p1 = std::min(s.k, p0 + tile);
      for (std::int64_t j0 = 0; j0 < s.n; j0 += tile) {
        const std::int64_t j1 = std::min(s.n, j0 + tile);
        for (std::int64_t i = i0; i < i1; ++i) {
          for (std::int64_t p = p0; p < p1; ++p) {
            const float x = a[i * s.k + p];
            float* __restrict row = c + i * s.n;
            const float* __restrict brow = b + p * s.n;
#pragma omp simd
            for (std::int64_t j = j0; j < j1; ++j) row[j] += x * brow[j];
          }
        }
      }
    }
  }
}

class MatmulKernel final : public graph::ExecutionKernel {
 public:
  MatmulKernel(Shape shape, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t tile)
      : shape_(shape), a_(a), b_(b), c_(c), tile_(tile) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const graph::ExecutionArguments& args) override {
    auto buffer = [&](std::int64_t uid) -> void* {
      auto it = args.variant_pack.find(uid);
      return it == args.variant_pack.end() ? nullptr : it->second;
    };
    const auto* a = static_cast<const float*>(buffer(a_));
    const auto* b = static_cast<const float*>(buffer(b_));
    auto* c = static_cast<float*>(buffer(c_));
    if (!a || !b || !c) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("the variant pack lacks a buffer of uid {}, {} or {} (A, B, C)", a_, b_, c_)};
    }
    if (tile_ > 0) {
      matmul_tiled(shape_, a, b, c, tile_);
    } else {
      matmul_plain(shape_, a, b, c);
    }
    return Error::ok();
  }

 private:
  Shape shape_;
  std::int64_t a_, b_, c_;  // uids
  std::int64_t tile_;
};

class MatmulEngine final : public graph::Engine {
 public:
  MatmulEngine(graph::EngineDescriptor descriptor, bool tiled)
      : descriptor_(std::move(descriptor)), tiled_(tiled) {}
  const graph::EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const graph::OperationGraph& og, const tunekit::platform::Device& device) const override {
    if (device.kind() != tunekit::platform::DeviceKind::CPU) return unsupported("runs on the CPU only");
    return matmul_shape(og).error();
  }
  Result<std::int64_t> estimate_workspace(const graph::OperationGraph&, const graph::KnobValues&) const override {
    return std::int64_t{0};
  }
  Result<std::unique_ptr<graph::ExecutionKernel>> compile(const graph::OperationGraph& og,
                                                          const graph::KnobValues& knobs,
                                                          tunekit::platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(og, device));
    const Shape shape = *matmul_shape(og);
    const graph::Operation& op = og.operations()[0];
    const std::int64_t tile = tiled_ ? knobs.get_int("tile") : 0;
    return std::unique_ptr<graph::ExecutionKernel>(new MatmulKernel(
        shape, op.input("A")->get_uid(), op.input("B")->get_uid(), op.output("C")->get_uid(), tile));
  }

 private:
  graph::EngineDescriptor descriptor_;
  bool tiled_;
};

graph::Knob tile_knob() {
  graph::Knob knob;
  knob.id = "tile";
  knob.type = graph::KnobType::INT;
  knob.default_value = std::int64_t{32};
  knob.min_value = std::int64_t{8};
  knob.max_value = std::int64_t{128};
  knob.step = std::int64_t{8};
  knob.description = "edge of the square blocks of M, N and K";
  return knob;
}

}  // namespace

MatmulEngineProvider::MatmulEngineProvider() {
  engines_.push_back(std::make_shared<MatmulEngine>(
      graph::EngineDescriptor{kMatmulNaiveEngine, "consumer_matmul_naive", {}, 2, "plain i-j-k loops"}, false));
  engines_.push_back(std::make_shared<MatmulEngine>(
      graph::EngineDescriptor{kMatmulTiledEngine, "consumer_matmul_tiled", {tile_knob()}, 1,
                              "cache-blocked i-k-j loops, contiguous inner loop"},
      true));
}

Error register_engines(graph::EngineRegistry& registry) { return registry.add_provider(MatmulEngineProvider()); }

}  // namespace consumer
