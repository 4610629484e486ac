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
  TUNEKIT_RETURN_IF_ERROR(check_dense_float_ports(op, {"X", "SCALE", "BIAS"}, {"Y", "MEAN", "INV_VARIANCE"}));
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
  Result<float*> x = float_buffer(pack, p.x_uid, "X");
  Result<float*> scale = float_buffer(pack, p.scale_uid, "SCALE");
  Result<float*> bias = float_buffer(pack, p.bias_uid, "BIAS");
  Result<float*> y = float_buffer(pack, p.y_uid, "Y");
  Result<float*> mean = float_buffer(pack, p.mean_uid, "MEAN");
  Result<float*> inv = float_buffer(pack, p.inv_variance_uid, "INV_VARIANCE");
  for (const Result<float*>* found : {&x, &scale, &bias, &y, &mean, &inv}) {
    if (!found->ok()) return found->error();
  }
  return LayerNormBuffers{*x, *scale, *bias, *y, *mean, *inv};
}

}  // namespace tunekit::engines
