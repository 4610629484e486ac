// Recognises the single-layernorm graphs of the CPU engines.
#include "tunekit/engines/layernorm_pattern.hpp"

#include <fmt/format.h>

#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {

std::string LayerNormPattern::describe() const {
  return fmt::format("layernorm {} x {} (epsilon {})", rows, width, epsilon);
}

Result<LayerNormPattern> match_layernorm(const graph::OperationGraph& graph) {
  const auto& ops = graph.operations();
  if (ops.size() != 1 || ops[0].kind != graph::OperationKind::LAYERNORM) return not_supported("only a single layernorm");
  const graph::Operation& op = ops[0];
  LayerNormPattern p;
  for (const char* port : {"X", "SCALE", "BIAS"}) {
    const graph::Tensor t = op.input(port);
    if (!is_dense_float(t) || t->get_is_virtual()) {
      return not_supported(fmt::format("{} must be a densely packed float input", port));
    }
  }
  for (const char* port : {"Y", "MEAN", "INV_VARIANCE"}) {
    const graph::Tensor t = op.output(port);
    if (t && (!is_dense_float(t) || t->get_is_virtual())) {
      return not_supported(fmt::format("{} must be a densely packed float output of the graph", port));
    }
  }
  const auto& dims = op.input("X")->get_dim();
  p.rows = dims[0];
  p.width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) p.width *= dims[i];
  p.epsilon = op.double_attribute("epsilon").value_or(1e-5);
  p.x_uid = op.input("X")->get_uid();
  p.scale_uid = op.input("SCALE")->get_uid();
  p.bias_uid = op.input("BIAS")->get_uid();
  p.y_uid = op.output("Y")->get_uid();
  if (op.output("MEAN")) p.mean_uid = op.output("MEAN")->get_uid();
  if (op.output("INV_VARIANCE")) p.inv_variance_uid = op.output("INV_VARIANCE")->get_uid();
  return p;
}

Result<LayerNormBuffers> find_buffers(const LayerNormPattern& p, const graph::VariantPack& pack) {
  LayerNormBuffers b;
  Result<void*> x = find_buffer(pack, p.x_uid, "X");
  if (!x.ok()) return x.error();
  Result<void*> scale = find_buffer(pack, p.scale_uid, "SCALE");
  if (!scale.ok()) return scale.error();
  Result<void*> bias = find_buffer(pack, p.bias_uid, "BIAS");
  if (!bias.ok()) return bias.error();
  Result<void*> y = find_buffer(pack, p.y_uid, "Y");
  if (!y.ok()) return y.error();
  b.x = static_cast<const float*>(*x);
  b.scale = static_cast<const float*>(*scale);
  b.bias = static_cast<const float*>(*bias);
  b.y = static_cast<float*>(*y);
  if (p.mean_uid >= 0) {
    Result<void*> mean = find_buffer(pack, p.mean_uid, "MEAN");
    if (!mean.ok()) return mean.error();
    b.mean = static_cast<float*>(*mean);
  }
  if (p.inv_variance_uid >= 0) {
    Result<void*> inv = find_buffer(pack, p.inv_variance_uid, "INV_VARIANCE");
    if (!inv.ok()) return inv.error();
    b.inv_variance = static_cast<float*>(*inv);
  }
  return b;
}

}  // namespace tunekit::engines
