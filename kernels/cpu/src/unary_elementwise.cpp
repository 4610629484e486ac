// The three paths of the unary kernels. The serial scalar path is the
// portable code with vectorisation disabled, the serial reference that
// calibration compares every candidate against; the SIMD paths take the
// instruction set of active_isa(); the parallel path splits the elements
// into one contiguous block per thread, each run by the serial SIMD path.
#include "tunekit/cpu/unary_elementwise.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>

#include "elementwise/unary_paths.hpp"
#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/isa.hpp"

namespace tunekit::cpu {
namespace {

void run_simd(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) noexcept {
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: detail::unary_avx512(op, type, in, out, n); return;
    case CpuIsa::AVX2: detail::unary_avx2(op, type, in, out, n); return;
    case CpuIsa::PORTABLE: break;
  }
#endif
  detail::unary_portable(op, type, in, out, n);
}

// Blocks start at multiples of 64 elements (whole cache lines for every type).
void run_parallel(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n, int threads) noexcept {
  const auto bytes = static_cast<std::int64_t>(core::size_of(type));
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t team = omp_get_num_threads();
    const std::int64_t block = ((n + team - 1) / team + 63) / 64 * 64;
    const std::int64_t begin = std::min<std::int64_t>(n, omp_get_thread_num() * block);
    const std::int64_t end = std::min<std::int64_t>(n, begin + block);
    if (begin < end) run_simd(op, type, src + begin * bytes, dst + begin * bytes, end - begin);
  }
}

constexpr DataType kFloating[] = {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::BFLOAT16};

bool is_floating(DataType type) noexcept {
  return std::find(std::begin(kFloating), std::end(kFloating), type) != std::end(kFloating);
}

}  // namespace

std::string_view to_string(UnaryOp op) noexcept {
  switch (op) {
    case UnaryOp::ABS: return "Abs";
    case UnaryOp::NOT: return "Not";
    case UnaryOp::NEG: return "Neg";
    case UnaryOp::EXP: return "Exp";
    case UnaryOp::LOG: return "Log";
    case UnaryOp::SQRT: return "Sqrt";
    case UnaryOp::RELU: return "Relu";
    case UnaryOp::SIGMOID: return "Sigmoid";
    case UnaryOp::TANH: return "Tanh";
    case UnaryOp::ERF: return "Erf";
  }
  return "Abs";
}

tuning::KernelTuningKey unary_key(UnaryOp op, DataType type) {
  return {kLibrary, std::string(to_string(op)), "openmp_simd", type, platform::DeviceKind::CPU, kElementwiseTuningAbi};
}

bool supports(UnaryOp op, DataType type) noexcept {
  switch (op) {
    case UnaryOp::NOT: return type == DataType::BOOL;
    case UnaryOp::ABS:
    case UnaryOp::NEG:
    case UnaryOp::RELU: return is_floating(type) || type == DataType::INT32 || type == DataType::INT64;
    default: return is_floating(type);
  }
}

ExecutionPath UnaryElementwiseKernel::choose_path(std::int64_t elements) const noexcept {
  if (elements < config_.simd_min_elements) return ExecutionPath::SERIAL_SCALAR;
  if (elements < config_.parallel_minimum_elements || team() <= 1) return ExecutionPath::SERIAL_SIMD;
  return ExecutionPath::PARALLEL_SIMD;
}

int elementwise_team(std::int64_t maximum_threads, int threads, int limit) noexcept {
  if (threads > 0) return threads;
  return static_cast<int>(std::clamp<std::int64_t>(maximum_threads, 1, limit > 0 ? limit : omp_get_max_threads()));
}

int UnaryElementwiseKernel::team(int threads) const noexcept {
  return elementwise_team(config_.maximum_threads, threads, threads_);
}

Error UnaryElementwiseKernel::run(const tuning::Tensor& input, tuning::Tensor& output, ExecutionPath path,
                                  int threads) const {
  if (input.type != output.type || !supports(op_, input.type)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{} does not support {} -> {}", to_string(op_),
                                                  core::to_string(input.type), core::to_string(output.type))};
  }
  const std::int64_t n = input.size();
  if (output.size() != n) {
    return {ErrorCode::INVALID_VALUE, fmt::format("input has {} elements, output {}", n, output.size())};
  }
  if (path == ExecutionPath::AUTO) path = choose_path(n);
  const void* in = input.buffer.data();
  void* out = output.buffer.data();
  switch (path) {
    case ExecutionPath::SERIAL_SCALAR: detail::unary_scalar(op_, input.type, in, out, n); break;
    case ExecutionPath::SERIAL_SIMD: run_simd(op_, input.type, in, out, n); break;
    case ExecutionPath::PARALLEL_SIMD:
    case ExecutionPath::AUTO: run_parallel(op_, input.type, in, out, n, team(threads)); break;
  }
  return Error::ok();
}

bool unary_float_array(UnaryOp op, const float* in, float* out, std::int64_t n) noexcept {
  if (!supports(op, DataType::FLOAT)) return false;
  run_simd(op, DataType::FLOAT, in, out, n);
  return true;
}

bool widen_to_float_array(DataType type, const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  if (type != DataType::FLOAT16 && type != DataType::BFLOAT16) return false;
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: detail::widen_halves_avx512(type, in, out, n); return true;
    case CpuIsa::AVX2: detail::widen_halves_avx2(type, in, out, n); return true;
    case CpuIsa::PORTABLE: break;
  }
#endif
  detail::widen_halves_portable(type, in, out, n);
  return true;
}

bool narrow_float_array(DataType type, const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  if (type != DataType::FLOAT16 && type != DataType::BFLOAT16) return false;
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: detail::narrow_halves_avx512(type, in, out, n); return true;
    case CpuIsa::AVX2: detail::narrow_halves_avx2(type, in, out, n); return true;
    case CpuIsa::PORTABLE: break;
  }
#endif
  detail::narrow_halves_portable(type, in, out, n);
  return true;
}

void gelu_float_array(const float* in, float* out, std::int64_t n) noexcept {
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: detail::gelu_float_avx512(in, out, n); return;
    case CpuIsa::AVX2: detail::gelu_float_avx2(in, out, n); return;
    case CpuIsa::PORTABLE: break;
  }
#endif
  detail::gelu_float_portable(in, out, n);
}

}  // namespace tunekit::cpu
