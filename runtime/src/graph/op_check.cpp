// The shared operation checker and the dispatch from kind to validator.
#include "op_check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::graph {
namespace detail {
namespace {

bool contains(std::initializer_list<std::string_view> list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string_view type_name(AttributeType type) {
  switch (type) {
    case AttributeType::INT: return "an integer";
    case AttributeType::DOUBLE: return "a number";
    case AttributeType::BOOL: return "a boolean";
    case AttributeType::STRING: return "a string";
    case AttributeType::LIST: return "a list of integers";
  }
  return "?";
}

bool has_type(const Value& value, AttributeType type) {
  switch (type) {
    case AttributeType::INT: return value.is_int();
    case AttributeType::DOUBLE: return value.is_double() || value.is_int();
    case AttributeType::BOOL: return value.is_bool();
    case AttributeType::STRING: return value.is_string();
    case AttributeType::LIST: return false;
  }
  return false;
}

const std::vector<std::int64_t> kNoDims;

}  // namespace

std::string dims_text(const std::vector<std::int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

std::vector<std::int64_t> channel_shape(std::size_t rank, std::int64_t channels) {
  std::vector<std::int64_t> shape(rank, 1);
  if (rank > 1) shape[1] = channels;
  return shape;
}

Error OpCheck::fail(const std::string& problem) const {
  return {ErrorCode::INVALID_VALUE, fmt::format("{}: {}", op_.describe(index_), problem)};
}

Error OpCheck::fail_port(std::string_view port, const std::string& problem) const {
  Tensor t = tensor(port);
  if (!t) return fail(fmt::format("port {}: {}", port, problem));
  return fail(fmt::format("{} tensor {}: {}", port, t->describe(), problem));
}

Tensor OpCheck::tensor(std::string_view port) const {
  const std::string key(port);
  if (Tensor t = op_.input(key)) return t;
  return op_.output(key);
}

const std::vector<std::int64_t>& OpCheck::dims(std::string_view port) const {
  Tensor t = tensor(port);
  return t ? t->get_dim() : kNoDims;
}

Error OpCheck::ports(std::initializer_list<std::string_view> required_inputs,
                     std::initializer_list<std::string_view> optional_inputs,
                     std::initializer_list<std::string_view> required_outputs,
                     std::initializer_list<std::string_view> optional_outputs) const {
  for (std::string_view port : required_inputs) {
    auto it = op_.inputs.find(std::string(port));
    if (it == op_.inputs.end()) return fail(fmt::format("missing input {}", port));
    if (!it->second) return fail(fmt::format("input {} has no tensor", port));
  }
  for (std::string_view port : required_outputs) {
    auto it = op_.outputs.find(std::string(port));
    if (it == op_.outputs.end()) return fail(fmt::format("missing output {}", port));
    if (!it->second) return fail(fmt::format("output {} has no tensor", port));
  }
  for (const auto& [port, t] : op_.inputs) {
    if (!contains(required_inputs, port) && !contains(optional_inputs, port)) {
      return fail(fmt::format("unknown input port {}", port));
    }
    if (!t) return fail(fmt::format("input {} has no tensor", port));
  }
  for (const auto& [port, t] : op_.outputs) {
    if (!contains(required_outputs, port) && !contains(optional_outputs, port)) {
      return fail(fmt::format("unknown output port {}", port));
    }
    if (!t) return fail(fmt::format("output {} has no tensor", port));
  }
  return Error::ok();
}

Error OpCheck::attributes(std::initializer_list<AttributeRule> rules) const {
  for (const auto& [key, value] : op_.attributes) {
    auto rule = std::find_if(rules.begin(), rules.end(), [&, name = key](const AttributeRule& r) { return r.name == name; });
    if (rule == rules.end() || rule->type == AttributeType::LIST) {
      return fail(fmt::format("unknown attribute '{}'", key));
    }
    if (!has_type(value, rule->type)) {
      return fail(fmt::format("attribute '{}' must be {}, got {}", key, type_name(rule->type), value.to_text()));
    }
  }
  for (const auto& [key, list] : op_.list_attributes) {
    auto rule = std::find_if(rules.begin(), rules.end(), [&, name = key](const AttributeRule& r) { return r.name == name; });
    if (rule == rules.end()) return fail(fmt::format("unknown attribute '{}'", key));
    if (rule->type != AttributeType::LIST) {
      return fail(fmt::format("attribute '{}' must be {}, got a list", key, type_name(rule->type)));
    }
  }
  for (const auto& rule : rules) {
    if (!rule.required) continue;
    const std::string key(rule.name);
    const bool present = rule.type == AttributeType::LIST ? op_.list_attributes.count(key) != 0
                                                          : op_.attributes.count(key) != 0;
    if (!present) return fail(fmt::format("missing attribute '{}'", key));
  }
  return Error::ok();
}

Error OpCheck::rank(std::string_view port, std::size_t expected) const {
  if (dims(port).size() != expected) {
    return fail_port(port, fmt::format("expected rank {}, got dims {}", expected, dims_text(dims(port))));
  }
  return Error::ok();
}

Error OpCheck::rank_at_least(std::string_view port, std::size_t minimum) const {
  if (dims(port).size() < minimum) {
    return fail_port(port, fmt::format("expected rank at least {}, got dims {}", minimum, dims_text(dims(port))));
  }
  return Error::ok();
}

Error OpCheck::dims_equal(std::string_view port, const std::vector<std::int64_t>& expected) const {
  if (dims(port) != expected) {
    return fail_port(port, fmt::format("expected dims {}, got {}", dims_text(expected), dims_text(dims(port))));
  }
  return Error::ok();
}

Error OpCheck::floating(std::string_view port) const {
  Tensor t = tensor(port);
  if (t && t->get_data_type() && !is_floating_point(*t->get_data_type())) {
    return fail_port(port, fmt::format("expected a floating-point type, got {}", to_string(*t->get_data_type())));
  }
  return Error::ok();
}

Error OpCheck::same_type(std::string_view port, std::string_view reference) const {
  Tensor a = tensor(port);
  Tensor b = tensor(reference);
  if (a && b && a->get_data_type() != b->get_data_type()) {
    return fail_port(port, fmt::format("data type {} differs from {} ({})", to_string(*a->get_data_type()), reference,
                                       to_string(*b->get_data_type())));
  }
  return Error::ok();
}

}  // namespace detail

Error validate_operation(const Operation& operation, std::size_t index) {
  const detail::OpCheck check(operation, index);
  switch (operation.kind) {
    case OperationKind::MATMUL: return detail::validate_matmul(check);
    case OperationKind::CONV_FPROP:
    case OperationKind::CONV_DGRAD:
    case OperationKind::CONV_WGRAD: return detail::validate_convolution(check);
    case OperationKind::POINTWISE: return detail::validate_pointwise(check);
    case OperationKind::REDUCTION: return detail::validate_reduction(check);
    case OperationKind::BATCHNORM_TRAINING:
    case OperationKind::BATCHNORM_INFERENCE:
    case OperationKind::BATCHNORM_BACKWARD: return detail::validate_batchnorm(check);
    case OperationKind::LAYERNORM:
    case OperationKind::RMSNORM:
    case OperationKind::RMSNORM_BACKWARD: return detail::validate_norm(check);
    case OperationKind::SDPA_FWD:
    case OperationKind::SDPA_BWD: return detail::validate_sdpa(check);
    case OperationKind::RESAMPLE_FWD: return detail::validate_resample(check);
    case OperationKind::SOFTMAX: return detail::validate_softmax(check);
  }
  return check.fail("unknown operation kind");
}

}  // namespace tunekit::graph
