// Recognises the single-softmax graphs of the CPU engines.
#include "tunekit/engines/softmax_pattern.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {

std::string SoftmaxPattern::describe() const {
  return fmt::format("softmax of [{}] along dim {}", fmt::join(dims, ", "), axis);
}

Result<SoftmaxPattern> match_softmax(const graph::OperationGraph& graph) {
  const auto& ops = graph.operations();
  if (ops.size() != 1 || ops[0].kind != graph::OperationKind::SOFTMAX) return not_supported("only a single softmax");
  const graph::Operation& op = ops[0];
  TUNEKIT_RETURN_IF_ERROR(check_dense_float_ports(op, {"X"}, {"Y"}));
  SoftmaxPattern p;
  p.dims = op.input("X")->get_dim();
  p.axis = graph::softmax_axis(op);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(p.dims.size()); ++i) {
    const std::int64_t d = p.dims[static_cast<std::size_t>(i)];
    if (i < p.axis) p.outer *= d;
    if (i == p.axis) p.width = d;
    if (i > p.axis) p.inner *= d;
  }
  p.x_uid = op.input("X")->get_uid();
  p.y_uid = op.output("Y")->get_uid();
  return p;
}

}  // namespace tunekit::engines
