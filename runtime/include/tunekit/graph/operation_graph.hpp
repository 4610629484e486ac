// The built, read-only form of a graph that engines see: validated
// operations in order, every tensor once, the compute type and the canonical
// signature. Produced by Graph::build_operation_graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/hash.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/tensor.hpp"

namespace tunekit::graph {

class OperationGraph {
 public:
  OperationGraph() = default;
  OperationGraph(std::string name, std::vector<Operation> operations, std::vector<Tensor> tensors,
                 DataType compute_data_type);

  const std::string& name() const noexcept { return name_; }
  const std::vector<Operation>& operations() const noexcept { return operations_; }
  // Every tensor once, in order of first use by the operations.
  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }
  DataType compute_data_type() const noexcept { return compute_data_type_; }

  // The tensor with this uid, or null.
  Tensor find_tensor(std::int64_t uid) const;
  // Uids of the non-virtual tensors: the buffers a variant pack must supply.
  std::vector<std::int64_t> required_uids() const;

  // XXH3-128 over a canonical serialization of the structure: operation
  // kinds, ports and attributes in order; tensors numbered by first use
  // (so uids and names do not matter); dims, strides, types, virtual flags;
  // the compute type. Equal graphs give equal signatures on every platform.
  const core::Hash128& signature() const noexcept { return signature_; }

 private:
  std::string name_;
  std::vector<Operation> operations_;
  std::vector<Tensor> tensors_;
  DataType compute_data_type_ = DataType::FLOAT;
  core::Hash128 signature_;
};

// The canonical signature as computed for OperationGraph (exposed for tests).
core::Hash128 compute_graph_signature(const std::vector<Operation>& operations, DataType compute_data_type);

}  // namespace tunekit::graph
