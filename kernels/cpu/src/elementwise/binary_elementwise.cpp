// The binary kernels' dispatcher: checks the operands, reduces the NumPy
// broadcast to the fewest dimensions (equal shapes and a scalar become one
// contiguous segment, a row or column broadcast two dimensions, anything
// else a general odometer over the outer dimensions), then runs the segments
// of the output serially or split over threads, with the loops of the chosen
// instruction set (binary_loops.hpp).
#include "tunekit/cpu/binary_elementwise.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <vector>

#include "binary_loops.hpp"
#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/isa.hpp"

namespace tunekit::cpu {
namespace {

using detail::BinarySegmentFn;

constexpr std::array<std::string_view, 13> kNames = {"Add", "Sub", "Mul",  "Div", "Max",  "Min",    "Pow",
                                                     "And", "Or",  "Xor", "Equal", "Less", "Greater"};

int kind_of(DataType type) noexcept {
  switch (type) {
    case DataType::FLOAT: return detail::KIND_F32;
    case DataType::DOUBLE: return detail::KIND_F64;
    case DataType::FLOAT16: return detail::KIND_F16;
    case DataType::BFLOAT16: return detail::KIND_BF16;
    case DataType::INT32: return detail::KIND_I32;
    case DataType::INT64: return detail::KIND_I64;
    case DataType::BOOL: return detail::KIND_U8;
    default: return -1;
  }
}

// The broadcast as the output's dimensions with each operand's element
// stride per dimension (0 where it is broadcast), outermost first, with
// dimensions of size 1 dropped and neighbours that walk both operands
// contiguously merged. The innermost strides are 0 or 1. Fixed arrays, set
// only up to the rank: a call on a few elements must pay neither for
// allocations nor for clearing 16 dimensions.
constexpr std::size_t kMaxRank = 16;

struct Layout {
  std::size_t rank = 0;
  std::array<std::int64_t, kMaxRank> dims;
  std::array<std::int64_t, kMaxRank> a_strides;
  std::array<std::int64_t, kMaxRank> b_strides;
};

Layout reduce(const tuning::Shape& a, const tuning::Shape& b, const tuning::Shape& out) noexcept {
  const std::size_t rank = out.size();
  std::array<std::int64_t, kMaxRank> a_full;
  std::array<std::int64_t, kMaxRank> b_full;
  std::int64_t a_step = 1;
  std::int64_t b_step = 1;
  for (std::size_t k = rank; k-- > 0;) {
    const std::size_t back = rank - 1 - k;
    a_full[k] = 0;
    b_full[k] = 0;
    if (back < a.size()) {
      const std::int64_t d = a[a.size() - 1 - back];
      if (d != 1) a_full[k] = a_step;
      a_step *= d;
    }
    if (back < b.size()) {
      const std::int64_t d = b[b.size() - 1 - back];
      if (d != 1) b_full[k] = b_step;
      b_step *= d;
    }
  }
  Layout layout;
  for (std::size_t k = 0; k < rank; ++k) {
    if (out[k] == 1) continue;
    if (layout.rank > 0) {
      // Merge k into the previous dimension when both operands continue there.
      const std::size_t last = layout.rank - 1;
      const std::int64_t inner = out[k];
      if (layout.a_strides[last] == a_full[k] * inner && layout.b_strides[last] == b_full[k] * inner) {
        layout.dims[last] *= inner;
        layout.a_strides[last] = a_full[k];
        layout.b_strides[last] = b_full[k];
        continue;
      }
    }
    layout.dims[layout.rank] = out[k];
    layout.a_strides[layout.rank] = a_full[k];
    layout.b_strides[layout.rank] = b_full[k];
    ++layout.rank;
  }
  if (layout.rank == 0) {  // a single element
    layout.rank = 1;
    layout.dims[0] = 1;
    layout.a_strides[0] = 1;
    layout.b_strides[0] = 1;
  }
  return layout;
}

// Runs output elements [begin, end) as segments of the innermost dimension.
void walk(const Layout& layout, BinarySegmentFn fn, int op, int kind, const char* a, std::size_t a_size,
          const char* b, std::size_t b_size, char* out, std::size_t out_size, std::int64_t begin,
          std::int64_t end) noexcept {
  const std::size_t rank = layout.rank;
  const std::int64_t inner = layout.dims[rank - 1];
  std::int64_t coords[kMaxRank];  // the outer ones, all set below
  // Outer coordinates of `begin`; rank is at most 16 (tensors' ranks are checked).
  std::int64_t rest = begin / inner;
  std::int64_t a_off = 0;
  std::int64_t b_off = 0;
  for (std::size_t k = rank - 1; k-- > 0;) {
    coords[k] = rest % layout.dims[k];
    rest /= layout.dims[k];
    a_off += coords[k] * layout.a_strides[k];
    b_off += coords[k] * layout.b_strides[k];
  }
  std::int64_t position = begin % inner;
  const std::int64_t sa = layout.a_strides[rank - 1];
  const std::int64_t sb = layout.b_strides[rank - 1];
  for (std::int64_t at = begin; at < end;) {
    const std::int64_t n = std::min(inner - position, end - at);
    fn(op, kind, a + static_cast<std::size_t>(a_off + position * sa) * a_size, sa,
       b + static_cast<std::size_t>(b_off + position * sb) * b_size, sb, out + static_cast<std::size_t>(at) * out_size,
       n);
    at += n;
    position = 0;
    // Odometer step over the outer dimensions.
    for (std::size_t k = rank - 1; k-- > 0;) {
      a_off += layout.a_strides[k];
      b_off += layout.b_strides[k];
      if (++coords[k] < layout.dims[k]) break;
      a_off -= coords[k] * layout.a_strides[k];
      b_off -= coords[k] * layout.b_strides[k];
      coords[k] = 0;
    }
  }
}

BinarySegmentFn simd_segment() noexcept {
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: return detail::binary_segment_avx512;
    case CpuIsa::AVX2: return detail::binary_segment_avx2;
    case CpuIsa::PORTABLE: break;
  }
#endif
  return detail::binary_segment_portable;
}

}  // namespace

std::string_view to_string(BinaryOp op) noexcept { return kNames[static_cast<std::size_t>(op)]; }

std::optional<BinaryOp> parse_binary_op(std::string_view kernel) noexcept {
  for (BinaryOp op : kAllBinaryOps) {
    if (to_string(op) == kernel) return op;
  }
  return std::nullopt;
}

tuning::KernelTuningKey binary_key(BinaryOp op, DataType t) {
  switch (op) {
    case BinaryOp::ADD: return add_openmp_simd_key(t);
    case BinaryOp::SUB: return sub_openmp_simd_key(t);
    case BinaryOp::MUL: return mul_openmp_simd_key(t);
    case BinaryOp::DIV: return div_openmp_simd_key(t);
    case BinaryOp::MAX: return max_openmp_simd_key(t);
    case BinaryOp::MIN: return min_openmp_simd_key(t);
    case BinaryOp::POW: return pow_openmp_simd_key(t);
    case BinaryOp::AND: return and_openmp_simd_key(t);
    case BinaryOp::OR: return or_openmp_simd_key(t);
    case BinaryOp::XOR: return xor_openmp_simd_key(t);
    case BinaryOp::EQUAL: return equal_openmp_simd_key(t);
    case BinaryOp::LESS: return less_openmp_simd_key(t);
    case BinaryOp::GREATER: return greater_openmp_simd_key(t);
  }
  return add_openmp_simd_key(t);
}

bool supports(BinaryOp op, DataType t) noexcept {
  switch (op) {
    case BinaryOp::ADD: return add_openmp_simd_supports(t);
    case BinaryOp::SUB: return sub_openmp_simd_supports(t);
    case BinaryOp::MUL: return mul_openmp_simd_supports(t);
    case BinaryOp::DIV: return div_openmp_simd_supports(t);
    case BinaryOp::MAX: return max_openmp_simd_supports(t);
    case BinaryOp::MIN: return min_openmp_simd_supports(t);
    case BinaryOp::POW: return pow_openmp_simd_supports(t);
    case BinaryOp::AND: return and_openmp_simd_supports(t);
    case BinaryOp::OR: return or_openmp_simd_supports(t);
    case BinaryOp::XOR: return xor_openmp_simd_supports(t);
    case BinaryOp::EQUAL: return equal_openmp_simd_supports(t);
    case BinaryOp::LESS: return less_openmp_simd_supports(t);
    case BinaryOp::GREATER: return greater_openmp_simd_supports(t);
  }
  return false;
}

DataType output_type(BinaryOp op, DataType operand_type) noexcept {
  const bool comparison = op == BinaryOp::EQUAL || op == BinaryOp::LESS || op == BinaryOp::GREATER;
  return comparison ? DataType::BOOL : operand_type;
}

ExecutionPath BinaryElementwiseKernel::choose_path(std::int64_t elements) const noexcept {
  if (elements < config_.simd_min_elements) return ExecutionPath::SERIAL_SCALAR;
  if (elements < config_.parallel_minimum_elements || team() <= 1) return ExecutionPath::SERIAL_SIMD;
  return ExecutionPath::PARALLEL_SIMD;
}

int BinaryElementwiseKernel::team(int threads) const noexcept {
  return elementwise_team(config_.maximum_threads, threads, threads_);
}

Error BinaryElementwiseKernel::run(const tuning::Tensor& a, const tuning::Tensor& b, tuning::Tensor& output,
                                   ExecutionPath path, int threads) const {
  const std::string_view name = to_string(op_);
  if (a.type != b.type || !supports(op_, a.type)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{} does not support operands {} and {}", name,
                                                  core::to_string(a.type), core::to_string(b.type))};
  }
  if (output.type != output_type(op_, a.type)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{} of {} writes {}, not {}", name, core::to_string(a.type),
                                                  core::to_string(output_type(op_, a.type)),
                                                  core::to_string(output.type))};
  }
  if (a.shape.size() > kMaxRank || b.shape.size() > kMaxRank) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{}: operand ranks {} and {} exceed {}", name, a.shape.size(),
                                                  b.shape.size(), kMaxRank)};
  }
  if (!tuning::broadcasts_to(a.shape, b.shape, output.shape)) {
    // The slow path builds the broadcast shape only to say what is wrong.
    Result<tuning::Shape> shape = tuning::broadcast_shapes(a.shape, b.shape);
    if (!shape.ok()) {
      return {ErrorCode::INVALID_VALUE, fmt::format("{}: {}", name, shape.error().message())};
    }
    return {ErrorCode::INVALID_VALUE,
            fmt::format("{}: operands {} and {} broadcast to {}, but the output is {}", name, tuning::to_string(a.shape),
                        tuning::to_string(b.shape), tuning::to_string(*shape), tuning::to_string(output.shape))};
  }
  const std::int64_t n = output.size();
  if (n < 0) return {ErrorCode::INVALID_VALUE, fmt::format("{}: negative dimension in {}", name, tuning::to_string(output.shape))};
  if (n == 0) return Error::ok();

  const Layout layout = reduce(a.shape, b.shape, output.shape);
  if (path == ExecutionPath::AUTO) path = choose_path(n);
  const BinarySegmentFn fn = path == ExecutionPath::SERIAL_SCALAR ? detail::binary_segment_scalar : simd_segment();
  const int op = static_cast<int>(op_);
  const int kind = kind_of(a.type);
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  auto* po = static_cast<char*>(output.data());
  const std::size_t in_size = core::size_of(a.type);
  const std::size_t out_size = core::size_of(output.type);
  if (path != ExecutionPath::PARALLEL_SIMD) {
    walk(layout, fn, op, kind, pa, in_size, pb, in_size, po, out_size, 0, n);
    return Error::ok();
  }
#pragma omp parallel num_threads(team(threads))
  {
    // Contiguous ranges of whole cache lines of output per thread.
    const std::int64_t parts = omp_get_num_threads();
    const std::int64_t part = omp_get_thread_num();
    constexpr std::int64_t kAlign = 64;
    const std::int64_t chunk = ((n + parts - 1) / parts + kAlign - 1) / kAlign * kAlign;
    const std::int64_t begin = std::min(n, part * chunk);
    const std::int64_t end = std::min(n, begin + chunk);
    if (begin < end) walk(layout, fn, op, kind, pa, in_size, pb, in_size, po, out_size, begin, end);
  }
  return Error::ok();
}

bool binary_float_array(BinaryOp op, const float* a, std::int64_t a_step, const float* b, std::int64_t b_step,
                        float* out, std::int64_t n) noexcept {
  switch (op) {
    case BinaryOp::ADD:
    case BinaryOp::SUB:
    case BinaryOp::MUL:
    case BinaryOp::DIV:
    case BinaryOp::MAX:
    case BinaryOp::MIN:
    case BinaryOp::POW: break;
    default: return false;
  }
  simd_segment()(static_cast<int>(op), detail::KIND_F32, a, a_step, b, b_step, out, n);
  return true;
}

}  // namespace tunekit::cpu
