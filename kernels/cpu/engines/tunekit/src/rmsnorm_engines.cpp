// tunekit's RMS normalization: rows split between the threads; per row one
// pass for the mean of the squares, then one that scales (row_kernels.hpp,
// on the active instruction-set path).

#include <cmath>

#include "row_kernels.hpp"
#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/rmsnorm_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

class RmsNormKernel final : public ExecutionKernel {
 public:
  RmsNormKernel(RmsNormPattern pattern, int threads) : p_(pattern), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    Result<RmsNormBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    const std::int64_t n = p_.width;
    const auto epsilon = static_cast<float>(p_.epsilon);
    const RowKernels& rows = row_kernels();
    cpu::parallel_for(threads_, p_.rows, [&](std::int64_t row) {
      const float* x = b->x + row * n;
      const float inv = 1.0f / std::sqrt(rows.mean_square(x, n) + epsilon);
      rows.scale(x, b->scale, inv, b->y + row * n, n);
      if (b->inv_rms) b->inv_rms[row] = inv;
    });
    return Error::ok();
  }

 private:
  RmsNormPattern p_;
  int threads_;
};

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_rmsnorm_engines() {
  return {workspace_free_engine<RmsNormKernel, RmsNormPattern>(
      EngineDescriptor{kRmsNormTunekitEngine, "CPU_RMSNORM_TUNEKIT", {threads_knob()}, 13,
                       "rows split between the threads; per row the mean of the squares, then the scaling "
                       "(two passes over X)"},
      match_rmsnorm)};
}

}  // namespace tunekit::engines::detail
