// Recognises the single-rmsnorm graphs of the CPU engines.
#include "tunekit/engines/rmsnorm_pattern.hpp"

#include <fmt/format.h>

#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {

std::string RmsNormPattern::describe() const {
  return fmt::format("rmsnorm {} x {} (epsilon {})", rows, width, epsilon);
}

Result<RmsNormPattern> match_rmsnorm(const graph::OperationGraph& graph) {
  const auto& ops = graph.operations();
  if (ops.size() != 1 || ops[0].kind != graph::OperationKind::RMSNORM) return not_supported("only a single rmsnorm");
  const graph::Operation& op = ops[0];
  TUNEKIT_RETURN_IF_ERROR(check_dense_float_ports(op, {"X", "SCALE"}, {"Y", "INV_RMS"}));
  RmsNormPattern p;
  const auto& dims = op.input("X")->get_dim();
  p.rows = dims[0];
  p.width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) p.width *= dims[i];
  p.epsilon = op.double_attribute("epsilon").value_or(1e-5);
  p.x_uid = op.input("X")->get_uid();
  p.scale_uid = op.input("SCALE")->get_uid();
  p.y_uid = op.output("Y")->get_uid();
  if (op.output("INV_RMS")) p.inv_rms_uid = op.output("INV_RMS")->get_uid();
  return p;
}

Result<RmsNormBuffers> find_buffers(const RmsNormPattern& p, const graph::VariantPack& pack) {
  Result<float*> x = float_buffer(pack, p.x_uid, "X");
  Result<float*> scale = float_buffer(pack, p.scale_uid, "SCALE");
  Result<float*> y = float_buffer(pack, p.y_uid, "Y");
  Result<float*> inv_rms = float_buffer(pack, p.inv_rms_uid, "INV_RMS");
  for (const Result<float*>* found : {&x, &scale, &y, &inv_rms}) {
    if (!found->ok()) return found->error();
  }
  return RmsNormBuffers{*x, *scale, *y, *inv_rms};
}

}  // namespace tunekit::engines
