// The oneDNN layer-normalization engine: a layer_normalization_forward
// primitive over [rows, width] views of X and Y with the scale and shift
// applied by oneDNN. oneDNN returns the variance, not its inverse, and its
// normalized dims are the last ones only: the engine applies to graphs that
// request no statistics.
#include <fmt/format.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_common.hpp"
#include "tunekit/engines/layernorm_pattern.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using dims = dnnl::memory::dims;
using data_type = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

using LayerNormPrimitiveDesc = std::shared_ptr<dnnl::layer_normalization_forward::primitive_desc>;

Result<LayerNormPrimitiveDesc> layernorm_primitive_desc(const LayerNormPattern& p, int threads) {
  try {
    OnednnTeam team(threads);
    const dnnl::memory::desc data(dims{p.rows, p.width}, data_type::f32, tag::ab);
    const dnnl::memory::desc statistics(dims{p.rows}, data_type::f32, tag::a);
    const dnnl::layer_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, data, statistics, static_cast<float>(p.epsilon),
        dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return std::make_shared<dnnl::layer_normalization_forward::primitive_desc>(desc, attr, onednn_cpu_engine());
  } catch (const dnnl::error& e) {
    return onednn_error(e, "layer normalization");
  }
}

class OnednnLayerNorm final : public ExecutionKernel {
 public:
  OnednnLayerNorm(LayerNormPattern pattern, LayerNormPrimitiveDesc pd, int threads)
      : p_(pattern), pd_(std::move(pd)), primitive_(*pd_), threads_(threads) {}
  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(pd_->scratchpad_desc().get_size()); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<LayerNormBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    return run_onednn("layer normalization execution", threads_, [&](const dnnl::engine& engine, dnnl::stream& stream) {
      const dnnl::memory::desc data(dims{p_.rows, p_.width}, data_type::f32, tag::ab);
      const dnnl::memory::desc parameter(dims{p_.width}, data_type::f32, tag::a);
      primitive_.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(data, engine, const_cast<float*>(b->x))},
                                  {DNNL_ARG_DST, dnnl::memory(data, engine, b->y)},
                                  {DNNL_ARG_SCALE, dnnl::memory(parameter, engine, const_cast<float*>(b->scale))},
                                  {DNNL_ARG_SHIFT, dnnl::memory(parameter, engine, const_cast<float*>(b->bias))},
                                  {DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_->scratchpad_desc(), engine, args.workspace)}});
    });
  }

 private:
  LayerNormPattern p_;
  LayerNormPrimitiveDesc pd_;
  dnnl::layer_normalization_forward primitive_;
  int threads_;
};

Result<LayerNormPattern> match_for_onednn(const OperationGraph& graph) {
  Result<LayerNormPattern> p = match_layernorm(graph);
  if (!p.ok()) return p;
  if (p->has_statistics()) {
    return Error(ErrorCode::NOT_SUPPORTED, "the statistics outputs (oneDNN's inference primitive gives none)");
  }
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes({p->rows, p->width, p->rows * p->width}, p->describe()));
  return p;
}

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_layernorm_engine() {
  return scratchpad_engine<OnednnLayerNorm, LayerNormPattern>(
      EngineDescriptor{kLayerNormOnednnEngine,
                       "CPU_LAYERNORM_ONEDNN",
                       {threads_knob()},
                       42,
                       fmt::format("oneDNN {} layer_normalization_forward ({})", onednn_version(), onednn_isa())},
      match_for_onednn, layernorm_primitive_desc, "layer normalization primitive");
}

}  // namespace tunekit::engines::detail
