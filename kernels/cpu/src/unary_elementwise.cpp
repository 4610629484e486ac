// The three paths of the unary kernels. The scalar path is compiled without
// auto-vectorisation so that it really is the portable serial reference that
// calibration compares every candidate against.
#include "tunekit/cpu/unary_elementwise.hpp"

#include <omp.h>

#include <cstdlib>
#include <type_traits>
#include <fmt/format.h>

namespace tunekit::cpu {
namespace {

template <typename T>
inline T apply(UnaryOp op, T x) noexcept {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return static_cast<std::uint8_t>(x == 0);  // Not on bool bytes
  } else if constexpr (std::is_integral_v<T>) {
    (void)op;
    using U = std::make_unsigned_t<T>;  // wraps for the minimum value instead of overflowing
    return x < T(0) ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
  } else {
    (void)op;
    return x < T(0) ? T(-x) : x;
  }
}

template <typename T>
#if defined(__clang__)
__attribute__((noinline))
#else
__attribute__((noinline, optimize("no-tree-vectorize")))
#endif
void run_scalar(UnaryOp op, const T* in, T* out, std::int64_t n) noexcept {
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (std::int64_t i = 0; i < n; ++i) out[i] = apply(op, in[i]);
}

template <typename T>
void run_simd(UnaryOp op, const T* in, T* out, std::int64_t n) noexcept {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) out[i] = apply(op, in[i]);
}

template <typename T>
void run_parallel(UnaryOp op, const T* in, T* out, std::int64_t n, int threads) noexcept {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = apply(op, in[i]);
}

template <typename T>
void dispatch(UnaryOp op, ExecutionPath path, const T* in, T* out, std::int64_t n, int threads) noexcept {
  switch (path) {
    case ExecutionPath::SERIAL_SCALAR: run_scalar(op, in, out, n); break;
    case ExecutionPath::SERIAL_SIMD: run_simd(op, in, out, n); break;
    case ExecutionPath::PARALLEL_SIMD:
    case ExecutionPath::AUTO: run_parallel(op, in, out, n, threads); break;
  }
}

}  // namespace

tuning::KernelTuningKey unary_key(UnaryOp op, DataType type) {
  return op == UnaryOp::ABS ? abs_openmp_simd_key(type) : not_openmp_simd_key(type);
}

bool supports(UnaryOp op, DataType type) noexcept {
  return op == UnaryOp::ABS ? abs_openmp_simd_supports(type) : not_openmp_simd_supports(type);
}

ExecutionPath UnaryElementwiseKernel::choose_path(std::int64_t elements) const noexcept {
  if (elements < config_.simd_min_elements) return ExecutionPath::SERIAL_SCALAR;
  if (elements < config_.parallel_minimum_elements || config_.maximum_threads <= 1) return ExecutionPath::SERIAL_SIMD;
  return ExecutionPath::PARALLEL_SIMD;
}

Error UnaryElementwiseKernel::run(const tuning::Tensor& input, tuning::Tensor& output, ExecutionPath path,
                                  int threads) const {
  if (input.type != output.type || !supports(op_, input.type)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{} does not support {} -> {}", op_ == UnaryOp::ABS ? "Abs" : "Not",
                                                  core::to_string(input.type), core::to_string(output.type))};
  }
  const std::int64_t n = input.size();
  if (output.size() != n) {
    return {ErrorCode::INVALID_VALUE, fmt::format("input has {} elements, output {}", n, output.size())};
  }
  if (path == ExecutionPath::AUTO) path = choose_path(n);
  const int team = threads > 0 ? threads : static_cast<int>(config_.maximum_threads);
  switch (input.type) {
    case DataType::FLOAT: dispatch(op_, path, input.as<float>(), output.as<float>(), n, team); break;
    case DataType::DOUBLE: dispatch(op_, path, input.as<double>(), output.as<double>(), n, team); break;
    case DataType::INT32: dispatch(op_, path, input.as<std::int32_t>(), output.as<std::int32_t>(), n, team); break;
    case DataType::BOOL: dispatch(op_, path, input.as<std::uint8_t>(), output.as<std::uint8_t>(), n, team); break;
    default: break;
  }
  return Error::ok();
}

}  // namespace tunekit::cpu
