// Recognises the conv_fprop [+ bias] [+ relu] graphs of the CPU engines.
#include "tunekit/engines/conv_pattern.hpp"


#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {
namespace {

using graph::Operation;
using graph::OperationKind;
using graph::PointwiseMode;
using graph::Tensor;

bool is_float4(const Tensor& t) {
  return t && t->get_data_type() == DataType::FLOAT && t->get_dim().size() == 4 && t->get_stride().size() == 4;
}

// Densely packed NCHW (strides C*H*W, H*W, W, 1) or NHWC (H*W*C, 1, W*C, C).
std::optional<bool> layout_is_nhwc(const Tensor& t) {
  const auto& d = t->get_dim();
  const auto& st = t->get_stride();
  if (st == std::vector<std::int64_t>{d[1] * d[2] * d[3], d[2] * d[3], d[3], 1}) return false;
  if (st == std::vector<std::int64_t>{d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}) return true;
  return std::nullopt;
}

std::int64_t list_value(const Operation& op, const char* name, std::size_t i, std::int64_t fallback) {
  const auto* list = op.list_attribute(name);
  return list && list->size() == 2 ? (*list)[i] : fallback;
}

}  // namespace

std::string ConvPattern::describe() const {
  std::string text = fmt::format("conv {}x{}x{}x{} * {}x{}x{}x{} pad {}x{} stride {}x{} dilation {}x{} ({})", n, c, h,
                                 w, k, c / groups, r, s, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w,
                                 nhwc ? "nhwc" : "nchw");
  if (groups > 1) text += fmt::format(" groups {}", groups);
  if (bias_uid >= 0) text += " + bias";
  if (relu) text += " + relu";
  return text;
}

Result<ConvPattern> match_conv(const graph::OperationGraph& graph) {
  const std::vector<Operation>& ops = graph.operations();
  if (ops.empty() || ops.size() > 3 || ops[0].kind != OperationKind::CONV_FPROP) {
    return not_supported("only a conv_fprop, optionally followed by a bias add and a relu");
  }
  const Operation& conv = ops[0];
  const Tensor x = conv.input("X");
  const Tensor w = conv.input("W");
  Tensor current = conv.output("Y");
  if (!is_float4(x) || !is_float4(w) || !is_float4(current)) {
    return not_supported("X, W and Y must be float tensors of rank 4 (2-D convolution)");
  }
  if (x->get_is_virtual() || w->get_is_virtual()) return not_supported("X and W must be inputs of the graph");
  const std::optional<bool> nhwc = layout_is_nhwc(x);
  if (!nhwc) return not_supported("X must be densely packed NCHW or NHWC");
  const auto& wd = w->get_dim();
  if (w->get_stride() != std::vector<std::int64_t>{wd[1] * wd[2] * wd[3], wd[2] * wd[3], wd[3], 1}) {
    return not_supported("W must be densely packed KCRS");
  }
  ConvPattern p;
  p.nhwc = *nhwc;
  p.n = x->get_dim()[0], p.c = x->get_dim()[1], p.h = x->get_dim()[2], p.w = x->get_dim()[3];
  p.k = wd[0], p.r = wd[2], p.s = wd[3];
  p.p = current->get_dim()[2], p.q = current->get_dim()[3];
  p.pad_h = list_value(conv, "padding", 0, 0), p.pad_w = list_value(conv, "padding", 1, 0);
  p.stride_h = list_value(conv, "stride", 0, 1), p.stride_w = list_value(conv, "stride", 1, 1);
  p.dilation_h = list_value(conv, "dilation", 0, 1), p.dilation_w = list_value(conv, "dilation", 1, 1);
  p.groups = conv.int_attribute("groups").value_or(1);
  if (p.groups < 1 || p.c % p.groups != 0 || p.k % p.groups != 0 || wd[1] * p.groups != p.c) {
    return not_supported(fmt::format("groups {} do not split X's {} and W's {} channels", p.groups, p.c, p.k));
  }
  p.x_uid = x->get_uid(), p.w_uid = w->get_uid();

  for (std::size_t i = 1; i < ops.size(); ++i) {
    const Operation& op = ops[i];
    if (op.kind != OperationKind::POINTWISE || !current->get_is_virtual()) {
      return not_supported(fmt::format("{} is not a pointwise epilogue reading a virtual output", op.describe(i)));
    }
    const std::optional<PointwiseMode> mode = graph::parse_pointwise_mode(op.string_attribute("mode").value_or(""));
    const Tensor in0 = op.input("IN_0");
    const Tensor in1 = op.input("IN_1");
    if (mode == PointwiseMode::ADD && i == 1 && in1) {
      const Tensor bias = same_tensor(in0, current) ? in1 : same_tensor(in1, current) ? in0 : nullptr;
      const bool per_channel = bias && bias->get_data_type() == DataType::FLOAT && !bias->get_is_virtual() &&
                               (bias->get_dim() == std::vector<std::int64_t>{1, p.k, 1, 1} ||
                                bias->get_dim() == std::vector<std::int64_t>{p.k});
      if (!per_channel) return not_supported(fmt::format("the bias of {} must be a float [1, K, 1, 1] input", op.describe(i)));
      p.bias_uid = bias->get_uid();
    } else if (mode == PointwiseMode::RELU && !p.relu && !in1 && same_tensor(in0, current)) {
      p.relu = true;
    } else {
      return not_supported(fmt::format("{} is neither a bias add after the convolution nor a relu", op.describe(i)));
    }
    current = op.output("OUT_0");
    if (!is_float4(current) || current->get_dim() != std::vector<std::int64_t>{p.n, p.k, p.p, p.q}) {
      return not_supported(fmt::format("the output of {} must be a float [N, K, P, Q] tensor", op.describe(i)));
    }
  }
  if (current->get_is_virtual()) return not_supported("the graph's last output must not be virtual");
  if (layout_is_nhwc(current) != p.nhwc) return not_supported("Y must be densely packed in the layout of X");
  p.y_uid = current->get_uid();
  return p;
}

Result<ConvBuffers> find_buffers(const ConvPattern& pattern, const graph::VariantPack& pack) {
  ConvBuffers buffers;
  Result<void*> x = find_buffer(pack, pattern.x_uid, "X");
  if (!x.ok()) return x.error();
  Result<void*> w = find_buffer(pack, pattern.w_uid, "W");
  if (!w.ok()) return w.error();
  Result<void*> y = find_buffer(pack, pattern.y_uid, "the output");
  if (!y.ok()) return y.error();
  buffers.x = static_cast<const float*>(*x);
  buffers.w = static_cast<const float*>(*w);
  buffers.y = static_cast<float*>(*y);
  if (pattern.bias_uid >= 0) {
    Result<void*> bias = find_buffer(pack, pattern.bias_uid, "the bias");
    if (!bias.ok()) return bias.error();
    buffers.bias = static_cast<const float*>(*bias);
  }
  return buffers;
}

void apply_conv_epilogue(const ConvPattern& p, const float* bias, float* y, int threads) {
  if (bias == nullptr && !p.relu) return;
  const std::int64_t plane = p.p * p.q;
  const bool relu = p.relu;
  if (p.nhwc) {
    const std::int64_t rows = p.n * plane;
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      float* row = y + i * p.k;
      for (std::int64_t j = 0; j < p.k; ++j) {
        const float v = row[j] + (bias != nullptr ? bias[j] : 0.0f);
        row[j] = relu ? (v > 0.0f ? v : 0.0f) : v;
      }
    }
  } else {
    const std::int64_t planes = p.n * p.k;
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static)
    for (std::int64_t i = 0; i < planes; ++i) {
      float* out = y + i * plane;
      const float b = bias != nullptr ? bias[i % p.k] : 0.0f;
      for (std::int64_t j = 0; j < plane; ++j) {
        const float v = out[j] + b;
        out[j] = relu ? (v > 0.0f ? v : 0.0f) : v;
      }
    }
  }
}

}  // namespace tunekit::engines
