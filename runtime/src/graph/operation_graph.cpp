// The built graph and its canonical signature.
#include "tunekit/graph/operation_graph.hpp"

#include <map>
#include <utility>

namespace tunekit::graph {
namespace {

void add_tensor(core::CanonicalHasher& hasher, const TensorAttributes& tensor) {
  hasher.add_uint(tensor.get_dim().size());
  for (std::int64_t dim : tensor.get_dim()) hasher.add_int(dim);
  hasher.add_uint(tensor.get_stride().size());
  for (std::int64_t stride : tensor.get_stride()) hasher.add_int(stride);
  const auto type = tensor.get_data_type();
  hasher.add_string(type ? to_string(*type) : std::string_view("unset"));
  hasher.add_bool(tensor.get_is_virtual());
}

void add_value(core::CanonicalHasher& hasher, const Value& value) {
  hasher.add_string(to_string(value.type()));
  switch (value.type()) {
    case ValueType::INT64: hasher.add_int(*value.as_int()); break;
    case ValueType::DOUBLE: hasher.add_double(*value.as_double()); break;
    case ValueType::BOOL: hasher.add_bool(*value.as_bool()); break;
    case ValueType::STRING: hasher.add_string(*value.as_string()); break;
  }
}

}  // namespace

core::Hash128 compute_graph_signature(const std::vector<Operation>& operations, DataType compute_data_type) {
  core::CanonicalHasher hasher;
  hasher.add_string("tunekit.graph.signature.v1");
  hasher.add_string(to_string(compute_data_type));
  hasher.add_uint(operations.size());
  // Tensors are numbered by first use; the first use serializes the tensor,
  // later uses only its number, so wiring is captured without uids or names.
  std::map<const TensorAttributes*, std::uint64_t> numbers;
  auto add_port = [&](const std::string& port, const Tensor& tensor) {
    hasher.add_string(port);
    auto [it, inserted] = numbers.emplace(tensor.get(), numbers.size());
    hasher.add_uint(it->second);
    hasher.add_bool(inserted);
    if (inserted) add_tensor(hasher, *tensor);
  };
  for (const auto& operation : operations) {
    hasher.add_string(to_string(operation.kind));
    hasher.add_uint(operation.inputs.size());
    for (const auto& [port, tensor] : operation.inputs) add_port(port, tensor);
    hasher.add_uint(operation.outputs.size());
    for (const auto& [port, tensor] : operation.outputs) add_port(port, tensor);
    hasher.add_uint(operation.attributes.size());
    for (const auto& [key, value] : operation.attributes) {
      hasher.add_string(key);
      add_value(hasher, value);
    }
    hasher.add_uint(operation.list_attributes.size());
    for (const auto& [key, list] : operation.list_attributes) {
      hasher.add_string(key);
      hasher.add_uint(list.size());
      for (std::int64_t v : list) hasher.add_int(v);
    }
  }
  return hasher.digest128();
}

OperationGraph::OperationGraph(std::string name, std::vector<Operation> operations, std::vector<Tensor> tensors,
                               DataType compute_data_type)
    : name_(std::move(name)),
      operations_(std::move(operations)),
      tensors_(std::move(tensors)),
      compute_data_type_(compute_data_type),
      signature_(compute_graph_signature(operations_, compute_data_type_)) {}

Tensor OperationGraph::find_tensor(std::int64_t uid) const {
  for (const auto& tensor : tensors_) {
    if (tensor->get_uid() == uid) return tensor;
  }
  return nullptr;
}

std::vector<std::int64_t> OperationGraph::required_uids() const {
  std::vector<std::int64_t> uids;
  for (const auto& tensor : tensors_) {
    if (!tensor->get_is_virtual()) uids.push_back(tensor->get_uid());
  }
  return uids;
}

}  // namespace tunekit::graph
