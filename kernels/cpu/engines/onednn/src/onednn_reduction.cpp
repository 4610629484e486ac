// The oneDNN reduction engine: a reduction primitive over X and Y as the
// graph describes them (Y's reduced dims are 1). NORM2 is oneDNN's
// norm_lp_sum with p = 2.
#include <fmt/format.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_common.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/reduction_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using graph::ReductionMode;

dnnl::algorithm algorithm_of(ReductionMode mode) {
  switch (mode) {
    case ReductionMode::SUM: return dnnl::algorithm::reduction_sum;
    case ReductionMode::MEAN: return dnnl::algorithm::reduction_mean;
    case ReductionMode::MAX: return dnnl::algorithm::reduction_max;
    case ReductionMode::MIN: return dnnl::algorithm::reduction_min;
    case ReductionMode::PROD: return dnnl::algorithm::reduction_mul;
    case ReductionMode::NORM2: return dnnl::algorithm::reduction_norm_lp_sum;
  }
  return dnnl::algorithm::reduction_sum;
}

using ReductionPrimitiveDesc = std::shared_ptr<dnnl::reduction::primitive_desc>;

Result<ReductionPrimitiveDesc> reduction_primitive_desc(const ReductionPattern& p, int threads) {
  try {
    OnednnTeam team(threads);
    const float power = p.mode == ReductionMode::NORM2 ? 2.0f : 0.0f;
    const dnnl::reduction::desc desc(algorithm_of(p.mode), dense_desc(p.x_dims), dense_desc(p.y_dims), power, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return std::make_shared<dnnl::reduction::primitive_desc>(desc, attr, onednn_cpu_engine());
  } catch (const dnnl::error& e) {
    return onednn_error(e, "reduction");
  }
}

class OnednnReduction final : public ExecutionKernel {
 public:
  OnednnReduction(ReductionPattern pattern, ReductionPrimitiveDesc pd, int threads)
      : p_(std::move(pattern)), pd_(std::move(pd)), primitive_(*pd_), threads_(threads) {}
  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(pd_->scratchpad_desc().get_size()); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<void*> x = find_buffer(args.variant_pack, p_.x_uid, "X");
    if (!x.ok()) return x.error();
    Result<void*> y = find_buffer(args.variant_pack, p_.y_uid, "Y");
    if (!y.ok()) return y.error();
    return run_onednn("reduction execution", threads_, [&](const dnnl::engine& engine, dnnl::stream& stream) {
      primitive_.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(dense_desc(p_.x_dims), engine, *x)},
                                  {DNNL_ARG_DST, dnnl::memory(dense_desc(p_.y_dims), engine, *y)},
                                  {DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_->scratchpad_desc(), engine, args.workspace)}});
    });
  }

 private:
  ReductionPattern p_;
  ReductionPrimitiveDesc pd_;
  dnnl::reduction primitive_;
  int threads_;
};

Result<ReductionPattern> match_for_onednn(const OperationGraph& graph) {
  Result<ReductionPattern> p = match_reduction(graph);
  if (!p.ok()) return p;
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes({p->outer * p->reduced * p->inner}, p->describe()));
  return p;
}

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_reduction_engine() {
  return scratchpad_engine<OnednnReduction, ReductionPattern>(
      EngineDescriptor{kReductionOnednnEngine,
                       "CPU_REDUCTION_ONEDNN",
                       {threads_knob()},
                       43,
                       fmt::format("oneDNN {} reduction ({})", onednn_version(), onednn_isa())},
      match_for_onednn, reduction_primitive_desc, "reduction primitive");
}

}  // namespace tunekit::engines::detail
