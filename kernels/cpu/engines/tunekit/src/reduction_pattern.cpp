// Recognises the single-reduction graphs of the CPU engines.
#include "tunekit/engines/reduction_pattern.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {

std::string ReductionPattern::describe() const {
  return fmt::format("{} of [{}] over {} (outer {}, inner {})", graph::to_string(mode), fmt::join(x_dims, ", "),
                     reduced, outer, inner);
}

Result<ReductionPattern> match_reduction(const graph::OperationGraph& graph) {
  const auto& ops = graph.operations();
  if (ops.size() != 1 || ops[0].kind != graph::OperationKind::REDUCTION) return not_supported("only a single reduction");
  const graph::Tensor x = ops[0].input("X");
  const graph::Tensor y = ops[0].output("Y");
  if (!is_dense_float(x) || x->get_is_virtual() || !is_dense_float(y) || y->get_is_virtual()) {
    return not_supported("X and Y must be densely packed float tensors of the graph");
  }
  ReductionPattern p;
  p.mode = *graph::parse_reduction_mode(ops[0].string_attribute("mode").value_or("sum"));
  p.x_dims = x->get_dim();
  p.y_dims = y->get_dim();
  // The reduced dims (X's dim above 1, Y's 1) must be consecutive.
  std::size_t first = p.x_dims.size(), last = 0;
  for (std::size_t i = 0; i < p.x_dims.size(); ++i) {
    if (p.x_dims[i] != p.y_dims[i]) {
      first = std::min(first, i);
      last = i;
    }
  }
  if (first == p.x_dims.size()) first = last = 0;  // nothing reduced: a copy, outer x 1 x inner
  for (std::size_t i = first; i <= last; ++i) {
    if (p.y_dims[i] != 1) return not_supported("the reduced dims must be consecutive");
  }
  for (std::size_t i = 0; i < p.x_dims.size(); ++i) {
    if (i < first) p.outer *= p.x_dims[i];
    else if (i <= last) p.reduced *= p.x_dims[i];
    else p.inner *= p.x_dims[i];
  }
  p.x_uid = x->get_uid();
  p.y_uid = y->get_uid();
  return p;
}

}  // namespace tunekit::engines
