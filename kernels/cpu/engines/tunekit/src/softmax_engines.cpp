// tunekit's softmax along the last dim (or one followed only by dims of 1):
// rows split between the threads, each row's maximum, its exponentials and
// their sum, then the division (row_kernels.hpp, on the active
// instruction-set path; two passes over X, one over Y).

#include "row_kernels.hpp"
#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/softmax_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

class SoftmaxKernel final : public ExecutionKernel {
 public:
  SoftmaxKernel(SoftmaxPattern pattern, int threads) : p_(std::move(pattern)), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    Result<float*> x = float_buffer(args.variant_pack, p_.x_uid, "X");
    if (!x.ok()) return x.error();
    Result<float*> y = float_buffer(args.variant_pack, p_.y_uid, "Y");
    if (!y.ok()) return y.error();
    const std::int64_t n = p_.width;
    const RowKernels& rows = row_kernels();
    cpu::parallel_for(threads_, p_.outer, [&](std::int64_t row) { rows.softmax(*x + row * n, *y + row * n, n); });
    return Error::ok();
  }

 private:
  SoftmaxPattern p_;
  int threads_;
};

Result<SoftmaxPattern> match_rows(const graph::OperationGraph& graph) {
  Result<SoftmaxPattern> p = match_softmax(graph);
  if (p.ok() && p->inner != 1) return not_supported("only along the last dim (" + p->describe() + ")");
  return p;
}

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_softmax_engines() {
  return {workspace_free_engine<SoftmaxKernel, SoftmaxPattern>(
      EngineDescriptor{kSoftmaxTunekitEngine, "CPU_SOFTMAX_TUNEKIT", {threads_knob()}, 13,
                       "rows split between the threads; per row the maximum, the exponentials and their sum in one "
                       "pass, then the division"},
      match_rows)};
}

}  // namespace tunekit::engines::detail
