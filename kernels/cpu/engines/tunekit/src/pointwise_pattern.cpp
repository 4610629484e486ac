// Recognises the pointwise graphs of the CPU engines.
#include "tunekit/engines/pointwise_pattern.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {
namespace {

// The period of an operand of `dims` against the output shape `out` (equal
// ranks): the product of the trailing dims it shares with the output when
// every dim before them is 1; 0 when it broadcasts another way.
std::int64_t period_of(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& out) {
  std::size_t first = dims.size();
  while (first > 0 && dims[first - 1] == out[first - 1]) --first;
  for (std::size_t i = 0; i < first; ++i) {
    if (dims[i] != 1) return 0;
  }
  std::int64_t period = 1;
  for (std::size_t i = first; i < dims.size(); ++i) period *= dims[i];
  return period;
}

}  // namespace

int PointwisePattern::virtual_count() const noexcept {
  return static_cast<int>(std::count_if(tensors.begin(), tensors.end(), [](const PointwiseTensor& t) { return t.is_virtual; }));
}

std::string PointwisePattern::describe() const {
  std::vector<std::string_view> modes;
  for (const PointwiseStep& s : steps) modes.push_back(graph::to_string(s.mode));
  return fmt::format("{} pointwise operation{} ({}) over [{}]{}", steps.size(), steps.size() == 1 ? "" : "s",
                     fmt::join(modes, ", "), fmt::join(dims, ", "),
                     type == DataType::FLOAT ? std::string() : fmt::format(" {}", core::to_string(type)));
}

Result<PointwisePattern> match_pointwise(const graph::OperationGraph& graph) {
  return match_pointwise_of(graph, {DataType::FLOAT});
}

Result<PointwisePattern> match_pointwise_of(const graph::OperationGraph& graph, std::initializer_list<DataType> types) {
  const auto& ops = graph.operations();
  if (ops.empty()) return not_supported("no operations");
  PointwisePattern p;
  for (const graph::Operation& op : ops) {
    if (op.kind != graph::OperationKind::POINTWISE) return not_supported("only pointwise operations");
  }
  std::vector<std::string_view> names;
  for (DataType type : types) names.push_back(core::to_string(type));
  // The type is the graph output's; every other tensor of the graph's own must share it.
  const graph::Tensor last = ops.back().output("OUT_0");
  const std::optional<DataType> declared = last ? last->get_data_type() : std::nullopt;
  if (!declared || std::find(types.begin(), types.end(), *declared) == types.end()) {
    return not_supported(fmt::format("the output must be {}{}", fmt::join(names, " or "),
                                     declared ? fmt::format(", not {}", core::to_string(*declared)) : ""));
  }
  p.type = *declared;
  p.dims = last->get_dim();
  p.elements = 1;
  for (std::int64_t d : p.dims) p.elements *= d;
  auto index_of = [&](const graph::Tensor& t, bool output) -> Result<int> {
    const bool typed = t && (t->get_data_type() == p.type || (t->get_is_virtual() && t->get_data_type() == DataType::FLOAT));
    if (!typed || !is_dense(t)) {
      return not_supported(fmt::format("tensor {} must be a densely packed {} tensor", t->describe(), core::to_string(p.type)));
    }
    if (t->get_dim().size() != p.dims.size()) {
      return not_supported(fmt::format("tensor {} has another rank than the output [{}]", t->describe(), fmt::join(p.dims, ", ")));
    }
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
      if (p.tensors[i].uid == t->get_uid()) {
        p.tensors[i].written = p.tensors[i].written || output;
        return static_cast<int>(i);
      }
    }
    const std::int64_t period = period_of(t->get_dim(), p.dims);
    if (output && period != p.elements) {
      return not_supported(fmt::format("tensor {} is an output of another shape than [{}]", t->describe(), fmt::join(p.dims, ", ")));
    }
    if (period == 0) {
      return not_supported(fmt::format("tensor {} broadcasts other than along its leading dims against [{}]", t->describe(),
                                       fmt::join(p.dims, ", ")));
    }
    p.tensors.push_back({t->get_uid(), t->get_is_virtual(), output, period, t->get_dim()});
    return static_cast<int>(p.tensors.size() - 1);
  };
  for (const graph::Operation& op : ops) {
    PointwiseStep step;
    step.mode = *graph::parse_pointwise_mode(*op.string_attribute("mode"));
    Result<int> in0 = index_of(op.input("IN_0"), false);
    if (!in0.ok()) return in0.error();
    step.in0 = *in0;
    if (op.input("IN_1")) {
      Result<int> in1 = index_of(op.input("IN_1"), false);
      if (!in1.ok()) return in1.error();
      step.in1 = *in1;
    }
    Result<int> out = index_of(op.output("OUT_0"), true);
    if (!out.ok()) return out.error();
    step.out = *out;
    p.steps.push_back(step);
  }
  for (const PointwiseTensor& t : p.tensors) {
    if (t.is_virtual && t.period != p.elements) return not_supported("a virtual operand that broadcasts");
  }
  return p;
}

}  // namespace tunekit::engines
