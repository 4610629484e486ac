// tunekit's layer normalization: rows split between the threads; per row
// either two passes over X for the statistics (the mean, then the squared
// deviations from it) or one pass of the sums of x and x squared, then one
// pass that normalizes, scales and shifts. Both sum x minus the row's first
// element, which keeps a large common offset from costing precision (in the
// one-pass variance it would cancel). The row loops are row_kernels.hpp's,
// on the active instruction-set path.

#include <cmath>

#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/layernorm_pattern.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "row_kernels.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

enum class Statistics { TWO_PASS, SHIFTED_ONE_PASS };

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
    const RowKernels& rows = row_kernels();
    const auto moments = statistics_ == Statistics::TWO_PASS ? rows.two_pass_moments : rows.shifted_moments;
    cpu::parallel_for(threads_, p_.rows, [&](std::int64_t row) {
      const float* x = b->x + row * n;
      const RowMoments m = moments(x, n);
      const float inv = 1.0f / std::sqrt(m.variance + epsilon);
      rows.normalize(x, b->scale, b->bias, m.mean, inv, b->y + row * n, n);
      if (b->mean) b->mean[row] = m.mean;
      if (b->inv_variance) b->inv_variance[row] = inv;
    });
    return Error::ok();
  }

 private:
  LayerNormPattern p_;
  Statistics statistics_;
  int threads_;
};

std::shared_ptr<const graph::Engine> layernorm_engine(EngineDescriptor descriptor, Statistics statistics) {
  return workspace_free_engine<LayerNormKernel, LayerNormPattern>(std::move(descriptor), match_layernorm, statistics);
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
