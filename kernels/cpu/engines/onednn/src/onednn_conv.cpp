// The oneDNN convolution engine: a convolution_forward primitive per plan on
// the graph's own NCHW or NHWC tensors, with the weights in the layout the
// primitive prefers (reordered into the workspace at each execution: the
// filter is an input and may change between runs), the bias as its bias
// argument and the relu as a post-op. The Winograd algorithm takes X and Y
// in the layout it prefers too: oneDNN 2.6 implements it only for blocked
// layouts (nChw16c), so X is reordered into the workspace before it and Y
// out of it after it, within the execution. Its filter transform is no
// copy: on a Zen 5 it took 6.7 ms for a 256 x 256 x 3 x 3 filter whose
// convolution took 0.33, so the plan keeps the transformed filter and
// transforms again only when the filter's bytes differ from those it was
// made from (an XXH3-128 hash of them per execution, about as costly as the
// plain reorders of the direct algorithm, which stay per execution).
#include <fmt/format.h>
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <span>

#include "onednn_common.hpp"
#include "tunekit/core/hash.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/onednn_engines.hpp"
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

constexpr std::int64_t kAlignment = 64;

std::int64_t aligned(std::int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

struct ConvDescs {
  // x and y: the primitive's (any when it chooses them); x_user and y_user:
  // the graph's.
  dnnl::memory::desc x, x_user, w_user, w_any, bias, y, y_user;
};

// Whether the primitive chooses X's and Y's layout (reordering them).
bool chooses_layouts(const std::string& algorithm) { return algorithm == "winograd"; }

ConvDescs conv_descs(const ConvPattern& p, bool any_layout = false) {
  const tag layout = p.nhwc ? tag::nhwc : tag::nchw;
  ConvDescs d;
  d.x_user = dnnl::memory::desc(dims{p.n, p.c, p.h, p.w}, data_type::f32, layout);
  d.x = any_layout ? dnnl::memory::desc(dims{p.n, p.c, p.h, p.w}, data_type::f32, tag::any) : d.x_user;
  if (p.groups == 1) {
    d.w_user = dnnl::memory::desc(dims{p.k, p.c, p.r, p.s}, data_type::f32, tag::oihw);
    d.w_any = dnnl::memory::desc(dims{p.k, p.c, p.r, p.s}, data_type::f32, tag::any);
  } else {
    // oneDNN takes a grouped filter as [G, K/G, C/G, R, S]: the graph's
    // [K, C/G, R, S] in the same order of memory.
    const dims grouped{p.groups, p.k / p.groups, p.c / p.groups, p.r, p.s};
    d.w_user = dnnl::memory::desc(grouped, data_type::f32, tag::goihw);
    d.w_any = dnnl::memory::desc(grouped, data_type::f32, tag::any);
  }
  d.y_user = dnnl::memory::desc(dims{p.n, p.k, p.p, p.q}, data_type::f32, layout);
  d.y = any_layout ? dnnl::memory::desc(dims{p.n, p.k, p.p, p.q}, data_type::f32, tag::any) : d.y_user;
  if (p.bias_uid >= 0) d.bias = dnnl::memory::desc(dims{p.k}, data_type::f32, tag::a);
  return d;
}

dnnl::algorithm algorithm_of(const std::string& name) {
  if (name == "direct") return dnnl::algorithm::convolution_direct;
  if (name == "winograd") return dnnl::algorithm::convolution_winograd;
  return dnnl::algorithm::convolution_auto;
}

using ConvPrimitiveDesc = std::shared_ptr<dnnl::convolution_forward::primitive_desc>;

Result<ConvPrimitiveDesc> conv_primitive_desc(const ConvPattern& p, const std::string& algorithm,
                                              std::int64_t implementation, int threads) {
  try {
    // As for the matmul: the team oneDNN sees now is the one it runs with.
    OnednnTeam team(threads);
    const ConvDescs d = conv_descs(p, chooses_layouts(algorithm));
    // oneDNN's dilation counts the gaps (0: dense); its right padding is what
    // makes the output extent come out as the graph's.
    const dims strides{p.stride_h, p.stride_w};
    const dims dilates{p.dilation_h - 1, p.dilation_w - 1};
    const dims pad_left{p.pad_h, p.pad_w};
    const dims pad_right{(p.p - 1) * p.stride_h + (p.r - 1) * p.dilation_h + 1 - p.h - p.pad_h,
                         (p.q - 1) * p.stride_w + (p.s - 1) * p.dilation_w + 1 - p.w - p.pad_w};
    const auto desc = p.bias_uid >= 0
                          ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm_of(algorithm),
                                                            d.x, d.w_any, d.bias, d.y, strides, dilates, pad_left,
                                                            pad_right)
                          : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm_of(algorithm),
                                                            d.x, d.w_any, d.y, strides, dilates, pad_left, pad_right);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (p.relu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    auto pd = std::make_shared<dnnl::convolution_forward::primitive_desc>(desc, attr, onednn_cpu_engine());
    TUNEKIT_RETURN_IF_ERROR(advance_to_distinct(*pd, implementation, p.describe()));
    return pd;
  } catch (const dnnl::error& e) {
    return onednn_error(e, fmt::format("convolution ({})", algorithm).c_str());
  }
}

// The workspace: the primitive's scratchpad, then the reordered weights
// when the primitive wants another layout than KCRS, then X and Y when it
// wants theirs in another layout than the graph's (0 bytes when not).
struct ConvWorkspace {
  std::int64_t scratchpad = 0, weights = 0, x = 0, y = 0;
  bool reorder = false;
  bool keeps_weights = false;  // the plan holds the reordered weights (Winograd), not the workspace
  std::int64_t weights_offset() const { return aligned(scratchpad); }
  std::int64_t x_offset() const { return weights_offset() + (reorder && !keeps_weights ? aligned(weights) : 0); }
  std::int64_t y_offset() const { return x_offset() + aligned(x); }
  std::int64_t total() const { return y_offset() + y; }
};

ConvWorkspace conv_workspace(const dnnl::convolution_forward::primitive_desc& pd, const ConvPattern& p,
                             const std::string& algorithm) {
  const ConvDescs user = conv_descs(p);
  ConvWorkspace w;
  w.scratchpad = static_cast<std::int64_t>(pd.scratchpad_desc().get_size());
  w.reorder = pd.weights_desc() != user.w_user;
  w.keeps_weights = w.reorder && chooses_layouts(algorithm);
  w.weights = static_cast<std::int64_t>(pd.weights_desc().get_size());
  if (pd.src_desc() != user.x_user) w.x = static_cast<std::int64_t>(pd.src_desc().get_size());
  if (pd.dst_desc() != user.y_user) w.y = static_cast<std::int64_t>(pd.dst_desc().get_size());
  return w;
}

class OnednnConv final : public ExecutionKernel {
 public:
  OnednnConv(ConvPattern pattern, ConvPrimitiveDesc pd, const std::string& algorithm, int threads)
      : p_(pattern), pd_(std::move(pd)), primitive_(*pd_), workspace_(conv_workspace(*pd_, p_, algorithm)),
        user_(conv_descs(p_)), threads_(threads) {
    const ConvDescs& d = user_;
    const dnnl::engine& engine = onednn_cpu_engine();
    if (workspace_.reorder) {
      reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, d.w_user, engine, pd_->weights_desc()));
    }
    if (workspace_.keeps_weights) kept_weights_ = dnnl::memory(pd_->weights_desc(), engine);
    if (workspace_.x > 0) x_in_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, d.x_user, engine, pd_->src_desc()));
    if (workspace_.y > 0) y_out_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, pd_->dst_desc(), engine, d.y_user));
  }
  std::int64_t workspace_size() const override { return workspace_.total(); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_.total()));
    Result<ConvBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    try {
      const ConvDescs& d = user_;
      const dnnl::engine& engine = onednn_cpu_engine();
      auto* base = static_cast<std::byte*>(args.workspace);
      dnnl::stream stream(engine);
      OnednnTeam team(threads_);
      dnnl::memory user_weights(d.w_user, engine, const_cast<float*>(b->w));
      dnnl::memory weights = user_weights;
      if (workspace_.keeps_weights) {
        const core::Hash128 filter = core::hash128(
            std::as_bytes(std::span(b->w, static_cast<std::size_t>(d.w_user.get_size() / sizeof(float)))));
        if (!kept_ || filter != kept_from_) {
          kept_ = false;
          reorder_.execute(stream, user_weights, kept_weights_);
          kept_from_ = filter;
          kept_ = true;
        }
        weights = kept_weights_;
      } else if (workspace_.reorder) {
        weights = dnnl::memory(pd_->weights_desc(), engine, base + workspace_.weights_offset());
        reorder_.execute(stream, user_weights, weights);
      }
      dnnl::memory user_x(d.x_user, engine, const_cast<float*>(b->x));
      dnnl::memory x = user_x;
      if (workspace_.x > 0) {
        x = dnnl::memory(pd_->src_desc(), engine, base + workspace_.x_offset());
        x_in_.execute(stream, user_x, x);
      }
      dnnl::memory user_y(d.y_user, engine, b->y);
      dnnl::memory y = workspace_.y > 0 ? dnnl::memory(pd_->dst_desc(), engine, base + workspace_.y_offset()) : user_y;
      std::unordered_map<int, dnnl::memory> arguments{
          {DNNL_ARG_SRC, x},
          {DNNL_ARG_WEIGHTS, weights},
          {DNNL_ARG_DST, y},
          {DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_->scratchpad_desc(), engine, base)}};
      if (p_.bias_uid >= 0) arguments.emplace(DNNL_ARG_BIAS, dnnl::memory(d.bias, engine, const_cast<float*>(b->bias)));
      primitive_.execute(stream, arguments);
      if (workspace_.y > 0) y_out_.execute(stream, y, user_y);
      stream.wait();
    } catch (const dnnl::error& e) {
      return onednn_error(e, "convolution execution");
    }
    return Error::ok();
  }

 private:
  ConvPattern p_;
  ConvPrimitiveDesc pd_;
  dnnl::convolution_forward primitive_;
  ConvWorkspace workspace_;
  ConvDescs user_;  // the graph's layouts (conv_descs(p_)), made once
  dnnl::reorder reorder_, x_in_, y_out_;
  // The transformed filter (ConvWorkspace::keeps_weights) and the hash of
  // the filter bytes it was made from; kept_ false until one is made.
  dnnl::memory kept_weights_;
  core::Hash128 kept_from_;
  bool kept_ = false;
  int threads_;
};

Result<ConvPattern> match_for_onednn(const OperationGraph& graph) {
  Result<ConvPattern> p = match_conv(graph);
  if (!p.ok()) return p;
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes(
      {p->n * p->c * p->h * p->w, p->k * p->c * p->r * p->s, p->n * p->k * p->p * p->q}, p->describe()));
  return p;
}

// As for the matmul: knob values without an implementation estimate nothing
// and are refused when they compile.
Result<std::int64_t> conv_workspace_estimate(const ConvPattern& p, const KnobValues& knobs) {
  Result<ConvPrimitiveDesc> pd = conv_primitive_desc(p, knobs.get_string("algorithm", "auto"),
                                                     knobs.get_int("implementation", 0),
                                                     static_cast<int>(knobs.get_int("threads", 1)));
  if (!pd.ok()) return std::int64_t{0};
  return conv_workspace(**pd, p, knobs.get_string("algorithm", "auto")).total();
}

Result<std::unique_ptr<ExecutionKernel>> make_conv(const ConvPattern& p, const KnobValues& knobs, int threads) {
  Result<ConvPrimitiveDesc> pd =
      conv_primitive_desc(p, knobs.get_string("algorithm", "auto"), knobs.get_int("implementation", 0), threads);
  if (!pd.ok()) return pd.error();
  try {
    OnednnTeam team(threads);
    return std::unique_ptr<ExecutionKernel>(
        new OnednnConv(p, std::move(pd).value(), knobs.get_string("algorithm", "auto"), threads));
  } catch (const dnnl::error& e) {
    return onednn_error(e, "convolution primitive");
  }
}

graph::Knob algorithm_knob() {
  return graph::choice_knob(
      "algorithm", {"auto", "direct", "winograd"},
      "oneDNN's convolution algorithm (auto: oneDNN chooses; winograd: 3x3, stride 1 only, X and Y reordered to and "
      "from the layout it needs within the execution)");
}

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_conv_engine() {
  return std::make_shared<PatternEngine<ConvPattern>>(
      EngineDescriptor{kConvOnednnEngine,
                       "CPU_CONV_ONEDNN",
                       {threads_knob(), algorithm_knob(), onednn_implementation_knob()},
                       41,
                       fmt::format("oneDNN {} convolution_forward ({}) with the bias and relu fused", onednn_version(),
                                   onednn_isa())},
      match_for_onednn, conv_workspace_estimate, make_conv);
}

}  // namespace tunekit::engines::detail

namespace tunekit::engines {

std::vector<std::string> onednn_conv_implementations(const ConvPattern& pattern, const std::string& algorithm) {
  using namespace detail;
  std::vector<std::string> names;
  for (std::int64_t i = 0; i <= kOnednnMaximumImplementation; ++i) {
    Result<ConvPrimitiveDesc> pd = conv_primitive_desc(pattern, algorithm, i, omp_get_max_threads());
    if (!pd.ok()) break;
    names.emplace_back((*pd)->impl_info_str());
  }
  return names;
}

}  // namespace tunekit::engines
