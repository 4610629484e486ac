// Recognises the matmul [+ bias] [+ activation] graphs of the CPU engines.
#include "tunekit/engines/matmul_pattern.hpp"


#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <type_traits>

#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {
namespace {

using graph::Operation;
using graph::OperationKind;
using graph::PointwiseMode;
using graph::Tensor;

// The pattern's element types, as the refusals name them: "float or bfloat16".
std::string type_names(std::initializer_list<DataType> types) {
  std::vector<std::string_view> names;
  for (DataType type : types) names.push_back(core::to_string(type));
  return fmt::format("{}", fmt::join(names, " or "));
}

bool has_type(const Tensor& t, DataType type) { return t && t->get_data_type() == type; }

// A step between the product and the output computes in float; a virtual
// tensor there may also be declared in the pattern's type.
bool is_step_type(const Tensor& t, DataType type) {
  return t && (t->get_data_type() == type || (t->get_is_virtual() && t->get_data_type() == DataType::FLOAT));
}

// The matrix dims of a rank-2 tensor, or of each batch of a rank-3 one.
std::vector<std::int64_t> last_two(const std::vector<std::int64_t>& values) {
  return {values[values.size() - 2], values[values.size() - 1]};
}

// The batch count of a rank-3 tensor (1 for rank 2) and the elements between
// batches (0 when there is one batch: broadcast to every batch of C).
std::int64_t batch_of(const Tensor& t) { return t->get_dim().size() == 3 ? t->get_dim()[0] : 1; }
std::int64_t batch_stride_of(const Tensor& t) { return batch_of(t) > 1 ? t->get_stride()[0] : 0; }

// A matrix operand (rank 2, or rank 3 for a batch of them) of rows x
// columns: row-major (unit column stride) or its transpose (unit row stride).
Result<MatrixOperand> operand(const Tensor& t, const char* port, DataType type) {
  const std::size_t rank = t ? t->get_dim().size() : 0;
  if (!has_type(t, type) || (rank != 2 && rank != 3) || t->get_stride().size() != rank) {
    return not_supported(
        fmt::format("{} must be a {} matrix (rank 2) or a batch of them (rank 3)", port, core::to_string(type)));
  }
  if (t->get_is_virtual()) return not_supported(fmt::format("{} must be an input of the graph, not virtual", port));
  const std::vector<std::int64_t> dims = last_two(t->get_dim());
  const std::vector<std::int64_t> strides = last_two(t->get_stride());
  MatrixOperand result;
  result.uid = t->get_uid();
  if (strides[1] == 1 || dims[1] == 1) {
    result.ld = std::max<std::int64_t>({strides[0], dims[1], 1});
    if (strides[0] >= dims[1] || dims[0] == 1) return result;
  }
  if (strides[0] == 1) {
    result.transposed = true;
    result.ld = std::max<std::int64_t>({strides[1], dims[0], 1});
    if (strides[1] >= dims[0] || dims[1] == 1) return result;
  }
  return not_supported(fmt::format("{} has strides [{}, {}]: neither row-major nor its transpose", port, strides[0],
                                 strides[1]));
}

std::optional<Activation> activation_of(PointwiseMode mode) {
  switch (mode) {
    case PointwiseMode::RELU: return Activation::RELU;
    case PointwiseMode::GELU: return Activation::GELU;
    case PointwiseMode::SIGMOID: return Activation::SIGMOID;
    case PointwiseMode::TANH: return Activation::TANH;
    default: return std::nullopt;
  }
}

}  // namespace

std::string_view to_string(Activation activation) noexcept {
  switch (activation) {
    case Activation::NONE: return "none";
    case Activation::RELU: return "relu";
    case Activation::GELU: return "gelu";
    case Activation::SIGMOID: return "sigmoid";
    case Activation::TANH: return "tanh";
  }
  return "none";
}

std::string MatmulPattern::describe() const {
  std::string text = fmt::format("matmul {}{}x{}x{}{} ({}, {})", batch > 1 ? fmt::format("{} x ", batch) : "", m, n, k,
                                 type == DataType::FLOAT ? std::string() : fmt::format(" {}", core::to_string(type)),
                                 a.transposed ? "A^T" : "A", b.transposed ? "B^T" : "B");
  if (bias_uid >= 0) text += " + bias";
  if (activation != Activation::NONE) text += fmt::format(" + {}", to_string(activation));
  return text;
}

Result<MatmulPattern> match_matmul_of(const graph::OperationGraph& graph, std::initializer_list<DataType> types) {
  const std::vector<Operation>& ops = graph.operations();
  if (ops.empty() || ops.size() > 3 || ops[0].kind != OperationKind::MATMUL) {
    return not_supported("only a matmul, optionally followed by a bias add and an activation");
  }
  const Operation& mm = ops[0];
  const std::string names = type_names(types);
  const Tensor first = mm.input("A");
  const std::optional<DataType> declared = first ? first->get_data_type() : std::nullopt;
  if (!declared || std::find(types.begin(), types.end(), *declared) == types.end()) {
    return not_supported(fmt::format("A must be {}{}", names,
                                     declared ? fmt::format(", not {}", core::to_string(*declared)) : ""));
  }
  const DataType type = *declared;
  Result<MatrixOperand> a = operand(mm.input("A"), "A", type);
  if (!a.ok()) return a.error();
  Result<MatrixOperand> b = operand(mm.input("B"), "B", type);
  if (!b.ok()) return b.error();
  MatmulPattern pattern;
  pattern.type = type;
  pattern.a = *a;
  pattern.b = *b;
  pattern.m = last_two(mm.input("A")->get_dim())[0];
  pattern.k = last_two(mm.input("A")->get_dim())[1];
  pattern.n = last_two(mm.input("B")->get_dim())[1];
  Tensor current = mm.output("C");
  const std::size_t rank = current ? current->get_dim().size() : 0;
  if (!is_step_type(current, type) || (rank != 2 && rank != 3)) {
    return not_supported(fmt::format("C must be a {} matrix (rank 2) or a batch of them (rank 3), as A",
                                     core::to_string(type)));
  }
  // A batch of products: A's and B's batch counts are C's, or 1 (one matrix
  // for every batch); the graph's validation has checked the broadcast.
  pattern.batch = batch_of(current);
  pattern.a_batch_stride = batch_stride_of(mm.input("A"));
  pattern.b_batch_stride = batch_stride_of(mm.input("B"));
  const std::vector<std::int64_t> c_dims =
      rank == 3 ? std::vector<std::int64_t>{pattern.batch, pattern.m, pattern.n} : std::vector<std::int64_t>{pattern.m, pattern.n};

  bool seen_activation = false;
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const Operation& op = ops[i];
    if (op.kind != OperationKind::POINTWISE) {
      return not_supported(fmt::format("{} is not a pointwise epilogue", op.describe(i)));
    }
    if (!current->get_is_virtual()) {
      return not_supported(fmt::format("the output read by {} must be virtual", op.describe(i)));
    }
    const std::optional<PointwiseMode> mode = graph::parse_pointwise_mode(op.string_attribute("mode").value_or(""));
    const Tensor in0 = op.input("IN_0");
    const Tensor in1 = op.input("IN_1");
    if (mode == PointwiseMode::ADD && i == 1 && in1) {
      const Tensor bias = same_tensor(in0, current) ? in1 : same_tensor(in1, current) ? in0 : nullptr;
      if (!bias) return not_supported(fmt::format("{} does not read the product", op.describe(i)));
      const auto& dims = bias->get_dim();
      const bool row_vector = (dims.size() == 1 && dims[0] == pattern.n) ||
                              (dims.size() == 2 && dims[0] == 1 && dims[1] == pattern.n) ||
                              (dims.size() == 3 && dims[0] == 1 && dims[1] == 1 && dims[2] == pattern.n);
      if (!has_type(bias, type) || bias->get_is_virtual() || !row_vector || bias->get_stride().back() != 1) {
        return not_supported(fmt::format("the bias of {} must be a contiguous {} [1, N] input, as A", op.describe(i),
                                         core::to_string(type)));
      }
      pattern.bias_uid = bias->get_uid();
    } else if (mode && activation_of(*mode) && !seen_activation && !in1 && same_tensor(in0, current)) {
      pattern.activation = *activation_of(*mode);
      seen_activation = true;
    } else {
      return not_supported(fmt::format("{} is neither a bias add after the matmul nor one relu, gelu, sigmoid or tanh",
                                     op.describe(i)));
    }
    current = op.output("OUT_0");
    if (!is_step_type(current, type) || current->get_dim() != c_dims) {
      return not_supported(fmt::format("the output of {} must be a {} tensor of the product's dims, as A",
                                       op.describe(i), core::to_string(type)));
    }
  }
  if (current->get_data_type() != type) {
    return not_supported(fmt::format("the graph's output must be {}, as A", core::to_string(type)));
  }
  if (current->get_is_virtual()) return not_supported("the graph's last output must not be virtual");
  const std::vector<std::int64_t> strides = last_two(current->get_stride());
  if ((strides[1] != 1 && pattern.n > 1) || strides[0] < pattern.n) return not_supported("the output must be row-major");
  pattern.c_uid = current->get_uid();
  pattern.ldc = std::max<std::int64_t>({strides[0], pattern.n, 1});
  pattern.c_batch_stride = batch_stride_of(current);
  if (pattern.batch > 1 && pattern.c_batch_stride < pattern.m * pattern.ldc) {
    return not_supported("the output's batches must not overlap");
  }
  return pattern;
}

Result<MatmulPattern> match_matmul(const graph::OperationGraph& graph) {
  return match_matmul_of(graph, {DataType::FLOAT});
}

template <typename T>
Result<MatmulBuffersOf<T>> find_buffers_of(const MatmulPattern& pattern, const graph::VariantPack& pack) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::uint16_t>);
  const DataType expected = std::is_same_v<T, float> ? DataType::FLOAT : DataType::BFLOAT16;
  if (pattern.type != expected) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: its buffers are {}, not {}", pattern.describe(),
                                                       core::to_string(pattern.type), core::to_string(expected)));
  }
  MatmulBuffersOf<T> buffers;
  Result<void*> a = find_buffer(pack, pattern.a.uid, "A");
  if (!a.ok()) return a.error();
  Result<void*> b = find_buffer(pack, pattern.b.uid, "B");
  if (!b.ok()) return b.error();
  Result<void*> c = find_buffer(pack, pattern.c_uid, "the output");
  if (!c.ok()) return c.error();
  buffers.a = static_cast<const T*>(*a);
  buffers.b = static_cast<const T*>(*b);
  buffers.c = static_cast<T*>(*c);
  if (pattern.bias_uid >= 0) {
    Result<void*> bias = find_buffer(pack, pattern.bias_uid, "the bias");
    if (!bias.ok()) return bias.error();
    buffers.bias = static_cast<const T*>(*bias);
  }
  return buffers;
}

template Result<MatmulBuffers> find_buffers_of<float>(const MatmulPattern&, const graph::VariantPack&);
template Result<Bfloat16MatmulBuffers> find_buffers_of<std::uint16_t>(const MatmulPattern&, const graph::VariantPack&);


}  // namespace tunekit::engines
