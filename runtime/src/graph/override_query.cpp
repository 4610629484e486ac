// The core operation of a graph, its port order, criteria and named tensors
// as an override file sees them.
#include "tunekit/graph/override_query.hpp"

#include <algorithm>

namespace tunekit::graph {
namespace {

std::int64_t flag(bool value) { return value ? 1 : 0; }

}  // namespace

std::int64_t data_type_criterion_code(DataType type) noexcept {
  switch (type) {
    case DataType::FLOAT: return 1;
    case DataType::DOUBLE: return 2;
    case DataType::FLOAT16: return 3;
    case DataType::BFLOAT16: return 4;
    case DataType::INT8: return 5;
    case DataType::UINT8: return 6;
    case DataType::INT32: return 7;
    case DataType::INT64: return 8;
    case DataType::BOOL: return 9;
  }
  return 0;
}

int core_operation_priority(OperationKind kind) noexcept {
  switch (kind) {
    case OperationKind::CONV_FPROP:
    case OperationKind::CONV_DGRAD:
    case OperationKind::CONV_WGRAD: return 70;
    case OperationKind::SDPA_FWD:
    case OperationKind::SDPA_BWD: return 60;
    case OperationKind::MATMUL: return 50;
    case OperationKind::BATCHNORM_TRAINING:
    case OperationKind::BATCHNORM_INFERENCE:
    case OperationKind::BATCHNORM_BACKWARD: return 40;
    case OperationKind::LAYERNORM:
    case OperationKind::RMSNORM:
    case OperationKind::RMSNORM_BACKWARD:
    case OperationKind::SOFTMAX: return 30;
    case OperationKind::REDUCTION:
    case OperationKind::RESAMPLE_FWD: return 20;
    case OperationKind::POINTWISE: return 10;
  }
  return 0;
}

std::optional<std::size_t> core_operation_index(const std::vector<Operation>& operations) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < operations.size(); ++i) {
    if (!best || core_operation_priority(operations[i].kind) > core_operation_priority(operations[*best].kind)) best = i;
  }
  return best;
}

const std::vector<std::string>& override_port_order(OperationKind kind) {
  static const std::vector<std::string> kMatmul{"A", "B", "C"};
  static const std::vector<std::string> kConvFprop{"X", "W", "Y"};
  static const std::vector<std::string> kConvDgrad{"DY", "W", "DX"};
  static const std::vector<std::string> kConvWgrad{"X", "DY", "DW"};
  static const std::vector<std::string> kPointwise{"IN_0", "IN_1", "OUT_0"};
  static const std::vector<std::string> kXY{"X", "Y"};
  static const std::vector<std::string> kBnTraining{"X", "SCALE", "BIAS", "Y", "MEAN", "INV_VARIANCE"};
  static const std::vector<std::string> kBnInference{"X", "MEAN", "INV_VARIANCE", "SCALE", "BIAS", "Y"};
  static const std::vector<std::string> kBnBackward{"DY", "X", "SCALE", "MEAN", "INV_VARIANCE", "DX", "DSCALE", "DBIAS"};
  static const std::vector<std::string> kRmsnorm{"X", "SCALE", "Y", "INV_RMS"};
  static const std::vector<std::string> kRmsBackward{"DY", "X", "SCALE", "INV_RMS", "DX", "DSCALE"};
  static const std::vector<std::string> kSdpaFwd{"Q", "K", "V", "O", "STATS"};
  static const std::vector<std::string> kSdpaBwd{"Q", "K", "V", "O", "DO", "STATS", "DQ", "DK", "DV"};
  switch (kind) {
    case OperationKind::MATMUL: return kMatmul;
    case OperationKind::CONV_FPROP: return kConvFprop;
    case OperationKind::CONV_DGRAD: return kConvDgrad;
    case OperationKind::CONV_WGRAD: return kConvWgrad;
    case OperationKind::POINTWISE: return kPointwise;
    case OperationKind::REDUCTION:
    case OperationKind::RESAMPLE_FWD:
    case OperationKind::SOFTMAX: return kXY;
    case OperationKind::BATCHNORM_TRAINING:
    case OperationKind::LAYERNORM: return kBnTraining;
    case OperationKind::BATCHNORM_INFERENCE: return kBnInference;
    case OperationKind::BATCHNORM_BACKWARD: return kBnBackward;
    case OperationKind::RMSNORM: return kRmsnorm;
    case OperationKind::RMSNORM_BACKWARD: return kRmsBackward;
    case OperationKind::SDPA_FWD: return kSdpaFwd;
    case OperationKind::SDPA_BWD: return kSdpaBwd;
  }
  return kXY;
}

OverrideQuery make_override_query(const Operation& operation) {
  OverrideQuery query;
  query.op = std::string(to_string(operation.kind));

  // Criteria: integer discriminants of the behaviour-changing attributes.
  const std::optional<std::string> mode = operation.string_attribute("mode");
  switch (operation.kind) {
    case OperationKind::POINTWISE:
      if (auto m = mode ? parse_pointwise_mode(*mode) : std::nullopt) query.criteria["pointwise_mode"] = static_cast<std::int64_t>(*m);
      break;
    case OperationKind::REDUCTION:
      if (auto m = mode ? parse_reduction_mode(*mode) : std::nullopt) query.criteria["reduction_mode"] = static_cast<std::int64_t>(*m);
      break;
    case OperationKind::RESAMPLE_FWD:
      if (auto m = mode ? parse_resample_mode(*mode) : std::nullopt) query.criteria["resample_mode"] = static_cast<std::int64_t>(*m);
      break;
    case OperationKind::LAYERNORM:
      query.criteria["norm_fwd_phase"] = flag(operation.output("MEAN") != nullptr);
      break;
    case OperationKind::RMSNORM:
      query.criteria["norm_fwd_phase"] = flag(operation.output("INV_RMS") != nullptr);
      break;
    case OperationKind::SOFTMAX:
      query.criteria["softmax_axis"] = softmax_axis(operation);
      break;
    case OperationKind::SDPA_FWD:
    case OperationKind::SDPA_BWD:
      query.criteria["causal_mask"] = flag(operation.bool_attribute("causal").value_or(false));
      break;
    default:
      break;
  }

  const std::vector<std::string>& ports = override_port_order(operation.kind);
  const Tensor first = ports.empty() ? nullptr : operation.input(ports.front());
  if (first && first->get_data_type() && *first->get_data_type() != DataType::FLOAT) {
    query.criteria[std::string(kDataTypeCriterion)] = data_type_criterion_code(*first->get_data_type());
  }

  auto add = [&](const std::string& port, const Tensor& tensor, bool output) {
    if (!tensor) return;
    query.tensors.push_back({port, tensor->get_dim(), tensor->get_stride(), output});
  };
  const std::vector<std::string>& order = override_port_order(operation.kind);
  for (const std::string& port : order) {
    if (const Tensor& in = operation.input(port)) {
      add(port, in, false);
    } else {
      add(port, operation.output(port), true);
    }
  }
  // Ports outside the fixed order (none for valid operations) follow by name.
  for (const auto* ports : {&operation.inputs, &operation.outputs}) {
    for (const auto& [port, tensor] : *ports) {
      if (std::find(order.begin(), order.end(), port) == order.end()) add(port, tensor, ports == &operation.outputs);
    }
  }
  return query;
}

Result<OverrideQuery> make_override_query(const OperationGraph& graph) {
  const std::optional<std::size_t> core = core_operation_index(graph.operations());
  if (!core) return Error(ErrorCode::NOT_SUPPORTED, "the graph has no operation");
  return make_override_query(graph.operations()[*core]);
}

}  // namespace tunekit::graph
