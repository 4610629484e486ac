// The bias and activation epilogue of the CPU matmul engines.
#include "tunekit/engines/matmul_epilogue.hpp"

#include <omp.h>

#include <algorithm>

#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/team.hpp"

namespace tunekit::engines {
namespace {

void activate_row(Activation activation, float* row, std::int64_t n) {
  switch (activation) {
    case Activation::NONE: return;
    case Activation::RELU:
      for (std::int64_t j = 0; j < n; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
      return;
    // The serial SIMD path: a row is one thread's share already.
    case Activation::SIGMOID: (void)cpu::unary_float_array(cpu::UnaryOp::SIGMOID, row, row, n); return;
    case Activation::TANH: (void)cpu::unary_float_array(cpu::UnaryOp::TANH, row, row, n); return;
    // One pass in place: x / 2 * (1 + erf(x / sqrt 2)) in registers.
    case Activation::GELU: cpu::gelu_float_array(row, row, n); return;
  }
}

}  // namespace

void apply_epilogue_rows(const MatmulPattern& pattern, const float* bias, float* c, std::int64_t row_begin,
                         std::int64_t row_end) {
  const std::int64_t n = pattern.n;
  for (std::int64_t i = row_begin; i < row_end; ++i) {
    float* row = c + i * pattern.ldc;
    if (bias != nullptr) {
      for (std::int64_t j = 0; j < n; ++j) row[j] += bias[j];
    }
    activate_row(pattern.activation, row, n);
  }
}

void apply_epilogue(const MatmulPattern& pattern, const float* bias, float* c, int threads) {
  if (!pattern.has_epilogue() || pattern.m == 0 || pattern.n == 0) return;
  const int team = static_cast<int>(std::clamp<std::int64_t>(threads, 1, pattern.m));
  if (team == 1) {
    apply_epilogue_rows(pattern, bias, c, 0, pattern.m);
    return;
  }
  cpu::run_on_team(team, [&] {
    const int t = omp_get_thread_num();
    const int count = omp_get_num_threads();
    const std::int64_t begin = pattern.m * t / count;
    const std::int64_t end = pattern.m * (t + 1) / count;
    apply_epilogue_rows(pattern, bias, c, begin, end);
  });
}

namespace {

class ProductThenEpilogue final : public graph::ExecutionKernel {
 public:
  ProductThenEpilogue(MatmulPattern pattern, MatmulProduct product, int threads)
      : pattern_(pattern), product_(std::move(product)), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const graph::ExecutionArguments& args) override {
    Result<MatmulBuffers> buffers = find_buffers(pattern_, args.variant_pack);
    if (!buffers.ok()) return buffers.error();
    for (std::int64_t index = 0; index < pattern_.batch; ++index) {
      const MatmulBuffers batch = buffers->at_batch(pattern_, index);
      TUNEKIT_RETURN_IF_ERROR(product_(pattern_, batch, threads_));
      apply_epilogue(pattern_, batch.bias, batch.c, threads_);
    }
    return Error::ok();
  }

 private:
  MatmulPattern pattern_;
  MatmulProduct product_;
  int threads_;
};

}  // namespace

std::shared_ptr<const graph::Engine> product_then_epilogue_engine(graph::EngineDescriptor descriptor,
                                                                  PatternEngine<MatmulPattern>::Match match,
                                                                  MatmulProductForKnobs make_product) {
  return std::make_shared<PatternEngine<MatmulPattern>>(
      std::move(descriptor), std::move(match),
      [](const MatmulPattern&, const graph::KnobValues&) -> Result<std::int64_t> { return std::int64_t{0}; },
      [make_product = std::move(make_product)](const MatmulPattern& p, const graph::KnobValues& knobs,
                                               int threads) -> Result<std::unique_ptr<graph::ExecutionKernel>> {
        Result<MatmulProduct> product = make_product(p, knobs, threads);
        if (!product.ok()) return product.error();
        return std::unique_ptr<graph::ExecutionKernel>(new ProductThenEpilogue(p, std::move(*product), threads));
      });
}

std::shared_ptr<const graph::Engine> product_then_epilogue_engine(graph::EngineDescriptor descriptor,
                                                                  PatternEngine<MatmulPattern>::Match match,
                                                                  MatmulProduct product) {
  return product_then_epilogue_engine(
      std::move(descriptor), std::move(match),
      [product = std::move(product)](const MatmulPattern&, const graph::KnobValues&, int) -> Result<MatmulProduct> {
        return product;
      });
}

}  // namespace tunekit::engines
