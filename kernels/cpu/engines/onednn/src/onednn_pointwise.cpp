// The oneDNN pointwise engine: a chain of pointwise operations as one
// primitive with post-ops, oneDNN's own fusion. The first operation is a
// binary primitive (or an eltwise one when it is unary); each later one
// takes the previous result and, for a binary operation, one tensor of the
// graph, and becomes an eltwise or binary post-op. A graph that is not such
// a chain (an intermediate read twice, a result that is the second operand
// of a subtraction or division, a broadcast first operand of a
// non-commutative first operation) is refused.
#include <fmt/format.h>

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onednn_common.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/pointwise_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::OperationGraph;
using graph::PointwiseMode;

struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};

std::optional<Eltwise> eltwise_of(PointwiseMode mode) {
  using a = dnnl::algorithm;
  switch (mode) {
    case PointwiseMode::IDENTITY: return Eltwise{a::eltwise_linear, 1, 0};
    case PointwiseMode::NEG: return Eltwise{a::eltwise_linear, -1, 0};
    case PointwiseMode::ABS: return Eltwise{a::eltwise_abs};
    case PointwiseMode::EXP: return Eltwise{a::eltwise_exp};
    case PointwiseMode::LOG: return Eltwise{a::eltwise_log};
    case PointwiseMode::SQRT: return Eltwise{a::eltwise_sqrt};
    case PointwiseMode::RELU: return Eltwise{a::eltwise_relu};
    case PointwiseMode::SIGMOID: return Eltwise{a::eltwise_logistic};
    case PointwiseMode::TANH: return Eltwise{a::eltwise_tanh};
    case PointwiseMode::GELU: return Eltwise{a::eltwise_gelu_erf};
    default: return std::nullopt;
  }
}

dnnl::algorithm binary_of(PointwiseMode mode) {
  switch (mode) {
    case PointwiseMode::ADD: return dnnl::algorithm::binary_add;
    case PointwiseMode::SUB: return dnnl::algorithm::binary_sub;
    case PointwiseMode::MUL: return dnnl::algorithm::binary_mul;
    case PointwiseMode::DIV: return dnnl::algorithm::binary_div;
    case PointwiseMode::MAX: return dnnl::algorithm::binary_max;
    default: return dnnl::algorithm::binary_min;
  }
}

bool commutative(PointwiseMode mode) {
  return mode == PointwiseMode::ADD || mode == PointwiseMode::MUL || mode == PointwiseMode::MAX ||
         mode == PointwiseMode::MIN;
}

// The chain: the first operation's operands, then per later operation its
// other operand (-1 for a unary one, -2 for an identity, which adds no
// post-op), as indices into the pattern's tensors.
struct Chain {
  PointwisePattern pattern;
  int first = -1, second = -1;       // the first operation's operands (second -1: unary)
  std::vector<int> others;           // per later operation
  const std::vector<std::int64_t>& dims(int t) const { return pattern.tensors[static_cast<std::size_t>(t)].dims; }
};

Result<Chain> match_chain(const OperationGraph& graph) {
  Result<PointwisePattern> p = match_pointwise(graph);
  if (!p.ok()) return p.error();
  Chain chain;
  chain.pattern = *p;
  const auto& steps = chain.pattern.steps;
  const auto& tensors = chain.pattern.tensors;
  auto full = [&](int t) { return tensors[static_cast<std::size_t>(t)].period == chain.pattern.elements; };
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    const int result = steps[i].out;
    if (!tensors[static_cast<std::size_t>(result)].is_virtual) {
      return not_supported("an intermediate result that is an output of the graph (oneDNN fuses a chain into one)");
    }
    int uses = 0;
    for (std::size_t j = i + 1; j < steps.size(); ++j) uses += (steps[j].in0 == result) + (steps[j].in1 == result);
    const PointwiseStep& next = steps[i + 1];
    if (uses != 1 || (next.in0 != result && next.in1 != result)) {
      return not_supported("not a chain: an intermediate result is read other than once, by the next operation");
    }
    if (next.in1 == result && !commutative(next.mode)) {
      return not_supported(fmt::format("the previous result is the second operand of {}", graph::to_string(next.mode)));
    }
    const bool identity = next.mode == PointwiseMode::IDENTITY;
    chain.others.push_back(identity ? -2 : next.in1 < 0 ? -1 : (next.in0 == result ? next.in1 : next.in0));
  }
  // oneDNN 2.6's injectors give every eltwise post-op of one algorithm the
  // first one's parameters (a binary primitive with neg, then identity as
  // linear(1, 0), came out not negated).
  // The first operation counts too when it is an eltwise primitive.
  std::vector<dnnl::algorithm> used;
  if (steps.front().in1 < 0 && steps.front().mode != PointwiseMode::IDENTITY) {
    used.push_back(eltwise_of(steps.front().mode)->algorithm);
  }
  for (std::size_t i = 1; i < steps.size(); ++i) {
    if (chain.others[i - 1] != -1) continue;
    const dnnl::algorithm algorithm = eltwise_of(steps[i].mode)->algorithm;
    if (std::find(used.begin(), used.end(), algorithm) != used.end()) {
      return not_supported(fmt::format("two {} post-ops (oneDNN 2.6 applies the first one's parameters to both)",
                                       dnnl_alg_kind2str(static_cast<dnnl_alg_kind_t>(algorithm))));
    }
    used.push_back(algorithm);
  }
  const PointwiseStep& head = steps.front();
  chain.first = head.in0;
  chain.second = head.in1;
  if (chain.second >= 0 && !full(chain.first)) {
    if (!commutative(head.mode) || !full(chain.second)) {
      return not_supported("the first operation's first operand is broadcast (oneDNN's binary takes it at full shape)");
    }
    std::swap(chain.first, chain.second);
  }
  if (chain.second < 0 && !full(chain.first)) return not_supported("a unary first operation on a broadcast operand");
  TUNEKIT_RETURN_IF_ERROR(check_onednn_sizes({chain.pattern.elements}, chain.pattern.describe()));
  return chain;
}

using PointwisePrimitiveDesc = std::shared_ptr<dnnl::primitive_desc>;

Result<PointwisePrimitiveDesc> pointwise_primitive_desc(const Chain& c, int threads) {
  try {
    OnednnTeam team(threads);
    const auto& steps = c.pattern.steps;
    dnnl::post_ops post;
    for (std::size_t i = 1; i < steps.size(); ++i) {
      const int other = c.others[i - 1];
      if (other == -2) continue;  // identity
      if (other < 0) {
        const Eltwise e = *eltwise_of(steps[i].mode);
        post.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
      } else {
        post.append_binary(binary_of(steps[i].mode), dense_desc(c.dims(other)));
      }
    }
    dnnl::primitive_attr attr;
    attr.set_post_ops(post);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::memory::desc data = dense_desc(c.pattern.dims);
    const dnnl::engine& engine = onednn_cpu_engine();
    if (c.second >= 0) {
      const dnnl::binary::desc desc(binary_of(steps[0].mode), data, dense_desc(c.dims(c.second)), data);
      return PointwisePrimitiveDesc(std::make_shared<dnnl::binary::primitive_desc>(desc, attr, engine));
    }
    const Eltwise e = *eltwise_of(steps[0].mode);
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, e.algorithm, data, e.alpha, e.beta);
    return PointwisePrimitiveDesc(std::make_shared<dnnl::eltwise_forward::primitive_desc>(desc, attr, engine));
  } catch (const dnnl::error& e) {
    return onednn_error(e, "pointwise chain (binary or eltwise primitive with post-ops)");
  }
}

class OnednnPointwise final : public ExecutionKernel {
 public:
  // Which tensor of the pattern each of oneDNN's arguments takes is fixed by
  // the chain: decided here, once, not at every execution.
  OnednnPointwise(Chain chain, PointwisePrimitiveDesc pd, int threads)
      : c_(std::move(chain)), pd_(std::move(pd)), primitive_(pd_->get()), threads_(threads) {
    if (c_.second >= 0) {
      bindings_ = {{DNNL_ARG_SRC_0, c_.first}, {DNNL_ARG_SRC_1, c_.second}};
    } else {
      bindings_ = {{DNNL_ARG_SRC, c_.first}};
    }
    bindings_.push_back({DNNL_ARG_DST, c_.pattern.steps.back().out});
    // Post-ops are numbered without the identities, which add none.
    int post_op = 0;
    for (int other : c_.others) {
      if (other == -2) continue;
      if (other >= 0) bindings_.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_op) | DNNL_ARG_SRC_1, other});
      ++post_op;
    }
  }
  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(pd_->scratchpad_desc().get_size()); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    // The buffers first (a missing one is an error of the variant pack),
    // then the memories and the run.
    std::vector<float*> data;
    for (const auto& [argument, t] : bindings_) {
      Result<float*> buffer = float_buffer(args.variant_pack, c_.pattern.tensors[static_cast<std::size_t>(t)].uid,
                                           "a pointwise operand");
      if (!buffer.ok()) return buffer.error();
      data.push_back(*buffer);
    }
    return run_onednn("pointwise chain execution", threads_, [&](const dnnl::engine& engine, dnnl::stream& stream) {
      std::unordered_map<int, dnnl::memory> arguments;
      for (std::size_t i = 0; i < bindings_.size(); ++i) {
        const auto& [argument, t] = bindings_[i];
        arguments[argument] = dnnl::memory(dense_desc(c_.dims(t)), engine, data[i]);
      }
      arguments[DNNL_ARG_SCRATCHPAD] = dnnl::memory(pd_->scratchpad_desc(), engine, args.workspace);
      primitive_.execute(stream, arguments);
    });
  }

 private:
  Chain c_;
  PointwisePrimitiveDesc pd_;
  dnnl::primitive primitive_;
  int threads_;
  std::vector<std::pair<int, int>> bindings_;  // oneDNN argument, tensor of the pattern
};

}  // namespace

std::shared_ptr<const graph::Engine> make_onednn_pointwise_engine() {
  return scratchpad_engine<OnednnPointwise, Chain>(
      EngineDescriptor{kPointwiseOnednnEngine,
                       "CPU_POINTWISE_ONEDNN",
                       {threads_knob()},
                       42,
                       fmt::format("oneDNN {} binary or eltwise primitive with the rest of the chain as post-ops ({})",
                                   onednn_version(), onednn_isa())},
      match_chain, pointwise_primitive_desc, "pointwise chain primitive");
}

}  // namespace tunekit::engines::detail
