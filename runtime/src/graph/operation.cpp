// Stable names of operation kinds and modes, and typed attribute access.
#include "tunekit/graph/operation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <utility>

namespace tunekit::graph {
namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(const std::array<std::pair<Enum, std::string_view>, N>& table,
                               std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [value, text] : table) {
    if (text == lower) return value;
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [entry, text] : table) {
    if (entry == value) return text;
  }
  return "unknown";
}

constexpr std::array<std::pair<OperationKind, std::string_view>, 16> kKinds{{
    {OperationKind::MATMUL, "matmul"},
    {OperationKind::CONV_FPROP, "conv_fprop"},
    {OperationKind::CONV_DGRAD, "conv_dgrad"},
    {OperationKind::CONV_WGRAD, "conv_wgrad"},
    {OperationKind::POINTWISE, "pointwise"},
    {OperationKind::REDUCTION, "reduction"},
    {OperationKind::BATCHNORM_TRAINING, "batchnorm_training"},
    {OperationKind::BATCHNORM_INFERENCE, "batchnorm_inference"},
    {OperationKind::BATCHNORM_BACKWARD, "batchnorm_backward"},
    {OperationKind::LAYERNORM, "layernorm"},
    {OperationKind::RMSNORM, "rmsnorm"},
    {OperationKind::RMSNORM_BACKWARD, "rmsnorm_backward"},
    {OperationKind::SDPA_FWD, "sdpa_fwd"},
    {OperationKind::SDPA_BWD, "sdpa_bwd"},
    {OperationKind::RESAMPLE_FWD, "resample_fwd"},
    {OperationKind::SOFTMAX, "softmax"},
}};

constexpr std::array<std::pair<PointwiseMode, std::string_view>, 16> kPointwise{{
    {PointwiseMode::IDENTITY, "identity"}, {PointwiseMode::NEG, "neg"},
    {PointwiseMode::ABS, "abs"},           {PointwiseMode::EXP, "exp"},
    {PointwiseMode::LOG, "log"},           {PointwiseMode::SQRT, "sqrt"},
    {PointwiseMode::RELU, "relu"},         {PointwiseMode::SIGMOID, "sigmoid"},
    {PointwiseMode::TANH, "tanh"},         {PointwiseMode::GELU, "gelu"},
    {PointwiseMode::ADD, "add"},           {PointwiseMode::SUB, "sub"},
    {PointwiseMode::MUL, "mul"},           {PointwiseMode::DIV, "div"},
    {PointwiseMode::MAX, "max"},           {PointwiseMode::MIN, "min"},
}};

constexpr std::array<std::pair<ReductionMode, std::string_view>, 6> kReduction{{
    {ReductionMode::SUM, "sum"}, {ReductionMode::MEAN, "mean"}, {ReductionMode::MAX, "max"},
    {ReductionMode::MIN, "min"}, {ReductionMode::PROD, "prod"}, {ReductionMode::NORM2, "norm2"},
}};

constexpr std::array<std::pair<ResampleMode, std::string_view>, 5> kResample{{
    {ResampleMode::MAXPOOL, "maxpool"},
    {ResampleMode::AVGPOOL_INCLUDE_PADDING, "avgpool_include_padding"},
    {ResampleMode::AVGPOOL_EXCLUDE_PADDING, "avgpool_exclude_padding"},
    {ResampleMode::NEAREST, "nearest"},
    {ResampleMode::BILINEAR, "bilinear"},
}};

}  // namespace

std::string_view to_string(OperationKind kind) noexcept { return name_of(kKinds, kind); }
std::optional<OperationKind> parse_operation_kind(std::string_view name) noexcept {
  return parse_name(kKinds, name);
}
std::vector<OperationKind> all_operation_kinds() {
  std::vector<OperationKind> kinds;
  for (const auto& entry : kKinds) kinds.push_back(entry.first);
  return kinds;
}

std::string_view to_string(PointwiseMode mode) noexcept { return name_of(kPointwise, mode); }
std::optional<PointwiseMode> parse_pointwise_mode(std::string_view name) noexcept {
  return parse_name(kPointwise, name);
}
int arity(PointwiseMode mode) noexcept {
  switch (mode) {
    case PointwiseMode::ADD:
    case PointwiseMode::SUB:
    case PointwiseMode::MUL:
    case PointwiseMode::DIV:
    case PointwiseMode::MAX:
    case PointwiseMode::MIN: return 2;
    default: return 1;
  }
}

double apply_pointwise(PointwiseMode mode, double x, double y) noexcept {
  switch (mode) {
    case PointwiseMode::IDENTITY: return x;
    case PointwiseMode::NEG: return -x;
    case PointwiseMode::ABS: return std::fabs(x);
    case PointwiseMode::EXP: return std::exp(x);
    case PointwiseMode::LOG: return std::log(x);
    case PointwiseMode::SQRT: return std::sqrt(x);
    case PointwiseMode::RELU: return x > 0.0 ? x : 0.0;
    case PointwiseMode::SIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case PointwiseMode::TANH: return std::tanh(x);
    case PointwiseMode::GELU: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case PointwiseMode::ADD: return x + y;
    case PointwiseMode::SUB: return x - y;
    case PointwiseMode::MUL: return x * y;
    case PointwiseMode::DIV: return x / y;
    case PointwiseMode::MAX: return std::max(x, y);
    case PointwiseMode::MIN: return std::min(x, y);
  }
  return x;
}

std::string_view to_string(ReductionMode mode) noexcept { return name_of(kReduction, mode); }
std::optional<ReductionMode> parse_reduction_mode(std::string_view name) noexcept {
  return parse_name(kReduction, name);
}

std::string_view to_string(ResampleMode mode) noexcept { return name_of(kResample, mode); }
std::optional<ResampleMode> parse_resample_mode(std::string_view name) noexcept {
  return parse_name(kResample, name);
}

std::optional<std::int64_t> Operation::int_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return std::nullopt;
  return it->second.as_int();
}

std::optional<double> Operation::double_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return std::nullopt;
  if (auto value = it->second.as_int()) return static_cast<double>(*value);
  return it->second.as_double();
}

std::optional<bool> Operation::bool_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return std::nullopt;
  return it->second.as_bool();
}

std::optional<std::string> Operation::string_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end() || !it->second.is_string()) return std::nullopt;
  return *it->second.as_string();
}

const std::vector<std::int64_t>* Operation::list_attribute(const std::string& key) const {
  auto it = list_attributes.find(key);
  return it == list_attributes.end() ? nullptr : &it->second;
}

Tensor Operation::input(const std::string& port) const {
  auto it = inputs.find(port);
  return it == inputs.end() ? nullptr : it->second;
}

Tensor Operation::output(const std::string& port) const {
  auto it = outputs.find(port);
  return it == outputs.end() ? nullptr : it->second;
}

std::int64_t softmax_axis(const Operation& softmax) {
  const Tensor x = softmax.input("X");
  const auto rank = x ? static_cast<std::int64_t>(x->get_dim().size()) : 0;
  const std::int64_t axis = softmax.int_attribute("axis").value_or(rank - 1);
  return axis < 0 ? axis + rank : axis;
}

std::string Operation::describe(std::size_t index) const {
  if (name.empty()) return fmt::format("{} #{}", to_string(kind), index);
  return fmt::format("{} '{}'", to_string(kind), name);
}

}  // namespace tunekit::graph
