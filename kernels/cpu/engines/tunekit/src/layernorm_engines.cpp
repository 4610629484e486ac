// tunekit's layer normalization: rows split between the threads; per row
// either two passes over X for the statistics (the mean, then the squared
// deviations from it) or one pass of the sums of x and x squared, then one
// pass that normalizes, scales and shifts. Both sum x minus the row's first
// element, which keeps a large common offset from costing precision (in the
// one-pass variance it would cancel).
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "tunekit/engines/layernorm_pattern.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

enum class Statistics { TWO_PASS, SHIFTED_ONE_PASS };

// Eight partial sums, so that the compiler keeps them in one vector register
// without reassociating the loop itself.
constexpr int kLanes = 8;

// The sum of x - shift: with the row's first element as the shift, the
// terms are the deviations, not the values, and a large common offset adds
// no rounding to the mean.
float shifted_sum(const float* x, std::int64_t n, float shift) {
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l] - shift;
  }
  float total = 0;
  for (int l = 0; l < kLanes; ++l) total += lanes[l];
  for (; i < n; ++i) total += x[i] - shift;
  return total;
}

float squared_deviation(const float* x, std::int64_t n, float center) {
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[i + l] - center;
      lanes[l] += d * d;
    }
  }
  float total = 0;
  for (int l = 0; l < kLanes; ++l) total += lanes[l];
  for (; i < n; ++i) total += (x[i] - center) * (x[i] - center);
  return total;
}

struct MeanVariance {
  float mean, variance;
};

MeanVariance shifted_one_pass(const float* x, std::int64_t n) {
  const float shift = x[0];
  float s[kLanes] = {}, q[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[i + l] - shift;
      s[l] += d;
      q[l] += d * d;
    }
  }
  float total = 0, squares = 0;
  for (int l = 0; l < kLanes; ++l) total += s[l], squares += q[l];
  for (; i < n; ++i) total += x[i] - shift, squares += (x[i] - shift) * (x[i] - shift);
  const float mean_shifted = total / static_cast<float>(n);
  return {shift + mean_shifted, std::max(0.0f, squares / static_cast<float>(n) - mean_shifted * mean_shifted)};
}

class LayerNormKernel final : public ExecutionKernel {
 public:
  LayerNormKernel(LayerNormPattern pattern, Statistics statistics, int threads)
      : p_(pattern), statistics_(statistics), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    Result<LayerNormBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    const std::int64_t n = p_.width;
    const auto epsilon = static_cast<float>(p_.epsilon);
    // Distinct buffers (a graph's inputs and outputs): restrict lets the
    // normalization loop vectorize without alias checks.
    const float* __restrict scale = b->scale;
    const float* __restrict shift = b->bias;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t row = 0; row < p_.rows; ++row) {
      const float* __restrict x = b->x + row * n;
      float* __restrict y = b->y + row * n;
      MeanVariance mv{};
      if (statistics_ == Statistics::TWO_PASS) {
        mv.mean = x[0] + shifted_sum(x, n, x[0]) / static_cast<float>(n);
        mv.variance = squared_deviation(x, n, mv.mean) / static_cast<float>(n);
      } else {
        mv = shifted_one_pass(x, n);
      }
      const float inv = 1.0f / std::sqrt(mv.variance + epsilon);
      const float mean = mv.mean;
      for (std::int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i] + shift[i];
      if (b->mean) b->mean[row] = mv.mean;
      if (b->inv_variance) b->inv_variance[row] = inv;
    }
    return Error::ok();
  }

 private:
  LayerNormPattern p_;
  Statistics statistics_;
  int threads_;
};

std::shared_ptr<const graph::Engine> layernorm_engine(EngineDescriptor descriptor, Statistics statistics) {
  return std::make_shared<PatternEngine<LayerNormPattern>>(
      std::move(descriptor), match_layernorm,
      [](const LayerNormPattern&, const KnobValues&) -> Result<std::int64_t> { return std::int64_t{0}; },
      [statistics](const LayerNormPattern& p, const KnobValues&, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(new LayerNormKernel(p, statistics, threads));
      });
}

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_layernorm_engines() {
  return {layernorm_engine(EngineDescriptor{kLayerNormTunekitEngine, "CPU_LAYERNORM_TUNEKIT", {threads_knob()}, 13,
                                            "rows split between the threads; per row the mean, then the squared "
                                            "deviations from it, then the normalization (three passes over X)"},
                           Statistics::TWO_PASS),
          layernorm_engine(EngineDescriptor{kLayerNormTunekitOnePassEngine, "CPU_LAYERNORM_TUNEKIT_ONEPASS",
                                            {threads_knob()}, 14,
                                            "rows split between the threads; per row the sums of X and X squared, "
                                            "shifted by the row's first element, in one pass, then the normalization"},
                           Statistics::SHIFTED_ONE_PASS)};
}

}  // namespace tunekit::engines::detail
