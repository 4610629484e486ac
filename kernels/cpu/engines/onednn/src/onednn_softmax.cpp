// The oneDNN softmax engine: a softmax_v2_forward primitive (the accurate
// algorithm, which subtracts the maximum) over X and Y as the graph
// describes them, along the graph's axis.
#include <fmt/format.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_common.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/softmax_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::OperationGraph;

using SoftmaxPrimitiveDesc = std::shared_ptr<dnnl::softmax_v2_forward::primitive_desc>;

Result<SoftmaxPrimitiveDesc> softmax_primitive_desc(const SoftmaxPattern& p, int threads) {
  try {
    OnednnTeam team(threads);
    const dnnl::memory::desc data = dense_desc(p.dims);
    const dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::softmax_accurate,
                                              data, data, static_cast<int>(p.axis));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return std::make_shared<dnnl::softmax_v2_forward::primitive_desc>(desc, attr, onednn_cpu_engine());
  } catch (const dnnl::error& e) {
    return onednn_error(e, "softmax");
  }
}

class OnednnSoftmax final : public ExecutionKernel {
 public:
  OnednnSoftmax(SoftmaxPattern pattern, SoftmaxPrimitiveDesc pd, int threads)
      : p_(std::move(pattern)), pd_(std::move(pd)), primitive_(*pd_), threads_(threads) {}
  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(pd_->scratchpad_desc().get_size()); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<float*> x = float_buffer(args.variant_pack, p_.x_uid, "X");
    if (!x.ok()) return x.error();
    Result<float*> y = float_buffer(args.variant_pack, p_.y_uid, "Y");
    if (!y.ok()) return y.error();
    return run_onednn("softmax execution", threads_, [&](const dnnl::engine& engine, dnnl::stream& stream) {
      const dnnl::memory::desc data = dense_desc(p_.dims);
      primitive_.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(data, engine, *x)},
                                  {DNNL_ARG_DST, dnnl::memory(data, engine, *y)},
                                  {DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_->scratchpad_desc(), engine, args.workspace)}});
    });
  }

 private:
  SoftmaxPattern p_;
  SoftmaxPrimitiveDesc pd_;
  dnnl::softmax_v2_forward primitive_;
  int threads_;
};

Result<SoftmaxPattern> match_for_onednn(const OperationGraph& graph) {
  Result<SoftmaxPattern> p = match_softmax(graph);
  if (!p.ok()) return p;
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes({p->outer * p->width * p->inner}, p->describe()));
  return p;
}

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_softmax_engine() {
  return scratchpad_engine<OnednnSoftmax, SoftmaxPattern>(
      EngineDescriptor{kSoftmaxOnednnEngine,
                       "CPU_SOFTMAX_ONEDNN",
                       {threads_knob()},
                       42,
                       fmt::format("oneDNN {} softmax_v2_forward, accurate ({})", onednn_version(), onednn_isa())},
      match_for_onednn, softmax_primitive_desc, "softmax primitive");
}

}  // namespace tunekit::engines::detail
