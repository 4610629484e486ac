// The oneDNN RMS-normalization engine. oneDNN 2.6 has no RMS normalization,
// so the engine composes three primitives: an eltwise square of X into the
// workspace, a reduction of each row's squares to their mean, then
// (mean + epsilon)^(-1/2) by two eltwise post-ops (the inverse root mean
// square) into INV_RMS or the workspace, and a binary multiplication of X by
// it with SCALE applied as a binary post-op. (oneDNN's own sum of squares,
// reduction_norm_lp_power_p_sum, has only its reference implementation in
// 2.6: about 100 times slower than the square and the mean.)
#include <fmt/format.h>

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_common.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/rmsnorm_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;

constexpr std::int64_t kAlignment = 64;

std::int64_t aligned(std::int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// The workspace: X squared, the inverse RMS of each row (when the graph does
// not ask for INV_RMS), then the scratchpad the primitives share (they run
// one after the other).
struct RmsNormPrimitives {
  dnnl::eltwise_forward::primitive_desc square;
  dnnl::reduction::primitive_desc statistics;
  dnnl::binary::primitive_desc scaling;
  std::int64_t squares_bytes = 0;
  std::int64_t statistics_bytes = 0;
  std::int64_t scratchpad_offset() const { return squares_bytes + statistics_bytes; }
  std::int64_t workspace_bytes() const {
    const auto scratch = std::max({square.scratchpad_desc().get_size(), statistics.scratchpad_desc().get_size(),
                                   scaling.scratchpad_desc().get_size()});
    return scratchpad_offset() + static_cast<std::int64_t>(scratch);
  }
};

Result<std::shared_ptr<RmsNormPrimitives>> rmsnorm_primitives(const RmsNormPattern& p, int threads) {
  try {
    OnednnTeam team(threads);
    const dnnl::engine& engine = onednn_cpu_engine();
    const dnnl::memory::desc data = dense_desc({p.rows, p.width});
    const dnnl::memory::desc per_row = dense_desc({p.rows, 1});
    const dnnl::memory::desc parameter = dense_desc({1, p.width});

    dnnl::primitive_attr square_attr;
    square_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::eltwise_forward::desc square(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_square, data);

    dnnl::post_ops inverse_rms;
    inverse_rms.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f, static_cast<float>(p.epsilon));
    inverse_rms.append_eltwise(1.0f, dnnl::algorithm::eltwise_pow, 1.0f, -0.5f);
    dnnl::primitive_attr statistics_attr;
    statistics_attr.set_post_ops(inverse_rms);
    statistics_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reduction::desc statistics(dnnl::algorithm::reduction_mean, data, per_row, 0.0f, 0.0f);

    dnnl::post_ops times_scale;
    times_scale.append_binary(dnnl::algorithm::binary_mul, parameter);
    dnnl::primitive_attr scaling_attr;
    scaling_attr.set_post_ops(times_scale);
    scaling_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::binary::desc scaling(dnnl::algorithm::binary_mul, data, per_row, data);

    auto primitives = std::make_shared<RmsNormPrimitives>(
        RmsNormPrimitives{dnnl::eltwise_forward::primitive_desc(square, square_attr, engine),
                          dnnl::reduction::primitive_desc(statistics, statistics_attr, engine),
                          dnnl::binary::primitive_desc(scaling, scaling_attr, engine)});
    primitives->squares_bytes = aligned(p.rows * p.width * 4);
    if (p.inv_rms_uid < 0) primitives->statistics_bytes = aligned(p.rows * 4);
    return primitives;
  } catch (const dnnl::error& e) {
    return onednn_error(e, "rms normalization (eltwise, reduction and binary primitives)");
  }
}

class OnednnRmsNorm final : public ExecutionKernel {
 public:
  OnednnRmsNorm(RmsNormPattern pattern, std::shared_ptr<RmsNormPrimitives> pds, int threads)
      : p_(pattern), pds_(std::move(pds)), square_(pds_->square), statistics_(pds_->statistics), scaling_(pds_->scaling),
        threads_(threads) {}
  std::int64_t workspace_size() const override { return pds_->workspace_bytes(); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<RmsNormBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    auto* workspace = static_cast<std::byte*>(args.workspace);
    float* squares = reinterpret_cast<float*>(workspace);
    float* inv_rms = b->inv_rms ? b->inv_rms : reinterpret_cast<float*>(workspace + pds_->squares_bytes);
    void* scratchpad = workspace + pds_->scratchpad_offset();
    return run_onednn("rms normalization execution", threads_, [&](const dnnl::engine& engine, dnnl::stream& stream) {
      const dnnl::memory::desc data = dense_desc({p_.rows, p_.width});
      const dnnl::memory::desc per_row = dense_desc({p_.rows, 1});
      const dnnl::memory::desc parameter = dense_desc({1, p_.width});
      const dnnl::memory x(data, engine, const_cast<float*>(b->x));
      const dnnl::memory inverse(per_row, engine, inv_rms);
      const dnnl::memory squared(data, engine, squares);
      square_.execute(stream, {{DNNL_ARG_SRC, x},
                               {DNNL_ARG_DST, squared},
                               {DNNL_ARG_SCRATCHPAD, dnnl::memory(pds_->square.scratchpad_desc(), engine, scratchpad)}});
      statistics_.execute(stream, {{DNNL_ARG_SRC, squared},
                                   {DNNL_ARG_DST, inverse},
                                   {DNNL_ARG_SCRATCHPAD, dnnl::memory(pds_->statistics.scratchpad_desc(), engine, scratchpad)}});
      scaling_.execute(stream, {{DNNL_ARG_SRC_0, x},
                                {DNNL_ARG_SRC_1, inverse},
                                {DNNL_ARG_DST, dnnl::memory(data, engine, b->y)},
                                {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                                 dnnl::memory(parameter, engine, const_cast<float*>(b->scale))},
                                {DNNL_ARG_SCRATCHPAD, dnnl::memory(pds_->scaling.scratchpad_desc(), engine, scratchpad)}});
    });
  }

 private:
  RmsNormPattern p_;
  std::shared_ptr<RmsNormPrimitives> pds_;
  dnnl::eltwise_forward square_;
  dnnl::reduction statistics_;
  dnnl::binary scaling_;
  int threads_;
};

Result<RmsNormPattern> match_for_onednn(const OperationGraph& graph) {
  Result<RmsNormPattern> p = match_rmsnorm(graph);
  if (!p.ok()) return p;
  if (p->width == 1) return not_supported("rows of one element (oneDNN's reduction refuses to reduce no dim)");
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes({p->rows, p->width, p->rows * p->width}, p->describe()));
  return p;
}

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_rmsnorm_engine() {
  return std::make_shared<PatternEngine<RmsNormPattern>>(
      EngineDescriptor{kRmsNormOnednnEngine,
                       "CPU_RMSNORM_ONEDNN",
                       {threads_knob()},
                       42,
                       fmt::format("oneDNN {} eltwise square, reduction mean (the inverse root mean square by "
                                   "post-ops) and binary multiplication with SCALE as a post-op ({})",
                                   onednn_version(), onednn_isa())},
      match_for_onednn,
      [](const RmsNormPattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        auto pds = rmsnorm_primitives(p, static_cast<int>(knobs.get_int("threads", 1)));
        if (!pds.ok()) return pds.error();
        return (*pds)->workspace_bytes();
      },
      [](const RmsNormPattern& p, const KnobValues&, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        auto pds = rmsnorm_primitives(p, threads);
        if (!pds.ok()) return pds.error();
        try {
          OnednnTeam team(threads);
          return std::unique_ptr<ExecutionKernel>(new OnednnRmsNorm(p, std::move(pds).value(), threads));
        } catch (const dnnl::error& e) {
          return onednn_error(e, "rms normalization primitives");
        }
      });
}

}  // namespace tunekit::engines::detail
