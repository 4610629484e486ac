// Graph description: names, data types, tensors, operations and the
// factories that infer output dims.
#include <fmt/format.h>

#include <algorithm>

#include "graph_impl.hpp"

namespace tunekit::graph {

Graph::Graph() : impl_(std::make_unique<Impl>()) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

void Graph::Impl::invalidate() {
  validated = false;
  built = false;
  operation_graph = OperationGraph();
  specs.clear();
  plans.clear();
  active_plan.reset();
  tuned_plan.reset();
}

Graph& Graph::set_name(std::string name) {
  impl_->name = std::move(name);
  return *this;
}

Graph& Graph::set_compute_data_type(DataType type) {
  impl_->compute_data_type = type;
  impl_->invalidate();
  return *this;
}

Graph& Graph::set_io_data_type(DataType type) {
  impl_->io_data_type = type;
  impl_->invalidate();
  return *this;
}

Graph& Graph::set_intermediate_data_type(DataType type) {
  impl_->intermediate_data_type = type;
  impl_->invalidate();
  return *this;
}

const std::string& Graph::name() const noexcept { return impl_->name; }

Tensor Graph::tensor(const TensorAttributes& attributes) {
  auto tensor = std::make_shared<TensorAttributes>(attributes);
  impl_->tensors.push_back(tensor);
  impl_->invalidate();
  return tensor;
}

Graph& Graph::add_operation(Operation operation) {
  impl_->operations.push_back(std::move(operation));
  impl_->invalidate();
  return *this;
}

const std::vector<Operation>& Graph::operations() const noexcept { return impl_->operations; }

namespace {

Tensor virtual_output(std::vector<std::int64_t> dims, const std::string& name) {
  auto output = std::make_shared<TensorAttributes>();
  output->set_dim(std::move(dims)).set_is_virtual(true).set_name(name);
  return output;
}

std::string output_name(const std::string& operation, std::string_view fallback) {
  return operation.empty() ? std::string(fallback) : operation + "::" + std::string(fallback);
}

}  // namespace

Tensor Graph::matmul(Tensor a, Tensor b, std::string name) {
  std::vector<std::int64_t> dims;
  if (a && b && a->get_dim().size() >= 2 && a->get_dim().size() == b->get_dim().size()) {
    const auto& ad = a->get_dim();
    const auto& bd = b->get_dim();
    const std::size_t rank = ad.size();
    for (std::size_t i = 0; i + 2 < rank; ++i) dims.push_back(std::max(ad[i], bd[i]));
    dims.push_back(ad[rank - 2]);
    dims.push_back(bd[rank - 1]);
  }
  Tensor c = virtual_output(std::move(dims), output_name(name, "C"));
  Operation op;
  op.kind = OperationKind::MATMUL;
  op.name = std::move(name);
  op.inputs = {{"A", std::move(a)}, {"B", std::move(b)}};
  op.outputs = {{"C", c}};
  add_operation(std::move(op));
  return c;
}

Tensor Graph::pointwise(Tensor input, PointwiseMode mode, std::string name) {
  Tensor out = virtual_output(input ? input->get_dim() : std::vector<std::int64_t>{}, output_name(name, "OUT_0"));
  Operation op;
  op.kind = OperationKind::POINTWISE;
  op.name = std::move(name);
  op.inputs = {{"IN_0", std::move(input)}};
  op.outputs = {{"OUT_0", out}};
  op.attributes = {{"mode", std::string(to_string(mode))}};
  add_operation(std::move(op));
  return out;
}

Tensor Graph::pointwise(Tensor input0, Tensor input1, PointwiseMode mode, std::string name) {
  std::vector<std::int64_t> dims;
  if (input0 && input1 && input0->get_dim().size() == input1->get_dim().size()) {
    for (std::size_t i = 0; i < input0->get_dim().size(); ++i) {
      dims.push_back(std::max(input0->get_dim()[i], input1->get_dim()[i]));
    }
  }
  Tensor out = virtual_output(std::move(dims), output_name(name, "OUT_0"));
  Operation op;
  op.kind = OperationKind::POINTWISE;
  op.name = std::move(name);
  op.inputs = {{"IN_0", std::move(input0)}, {"IN_1", std::move(input1)}};
  op.outputs = {{"OUT_0", out}};
  op.attributes = {{"mode", std::string(to_string(mode))}};
  add_operation(std::move(op));
  return out;
}

Result<VariantPack> to_variant_pack(const TensorLookup& tensor_lookup) {
  VariantPack pack;
  for (const auto& [tensor, pointer] : tensor_lookup) {
    if (!tensor) return Error(ErrorCode::INVALID_VALUE, "tensor lookup: a key is a null tensor");
    if (!tensor->has_uid()) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("tensor lookup: tensor {} has no uid", tensor->describe()));
    }
    if (!pack.emplace(tensor->get_uid(), pointer).second) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("tensor lookup: uid {} appears twice", tensor->get_uid()));
    }
  }
  return pack;
}

}  // namespace tunekit::graph
