// The three paths of Saxpy. The scalar path is compiled without
// auto-vectorisation so that it really is the serial portable reference that
// calibration checks every candidate against.
#include "consumer/saxpy.hpp"

#include <fmt/format.h>

namespace consumer {
namespace {

template <typename T>
#if defined(__clang__)
__attribute__((noinline))
#else
__attribute__((noinline, optimize("no-tree-vectorize")))
#endif
void run_scalar(T alpha, const T* x, const T* y, T* out, std::int64_t n) noexcept {
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (std::int64_t i = 0; i < n; ++i) out[i] = alpha * x[i] + y[i];
}

template <typename T>
void run_simd(T alpha, const T* x, const T* y, T* out, std::int64_t n) noexcept {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) out[i] = alpha * x[i] + y[i];
}

template <typename T>
void run_parallel(T alpha, const T* x, const T* y, T* out, std::int64_t n, int threads) noexcept {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = alpha * x[i] + y[i];
}

template <typename T>
void dispatch(SaxpyPath path, double alpha, const tunekit::tuning::Tensor& x, const tunekit::tuning::Tensor& y,
              tunekit::tuning::Tensor& out, std::int64_t n, int threads) noexcept {
  const T a = static_cast<T>(alpha);
  switch (path) {
    case SaxpyPath::SERIAL_SCALAR: run_scalar(a, x.as<T>(), y.as<T>(), out.as<T>(), n); break;
    case SaxpyPath::SERIAL_SIMD: run_simd(a, x.as<T>(), y.as<T>(), out.as<T>(), n); break;
    case SaxpyPath::PARALLEL_SIMD:
    case SaxpyPath::AUTO: run_parallel(a, x.as<T>(), y.as<T>(), out.as<T>(), n, threads); break;
  }
}

}  // namespace

const char* to_string(SaxpyPath path) noexcept {
  switch (path) {
    case SaxpyPath::AUTO: return "auto";
    case SaxpyPath::SERIAL_SCALAR: return "serial_scalar";
    case SaxpyPath::SERIAL_SIMD: return "serial_simd";
    case SaxpyPath::PARALLEL_SIMD: return "parallel_simd";
  }
  return "unknown";
}

SaxpyPath SaxpyKernel::choose_path(std::int64_t elements) const noexcept {
  if (elements < config_.simd_min_elements) return SaxpyPath::SERIAL_SCALAR;
  if (elements < config_.parallel_minimum_elements || config_.maximum_threads <= 1) return SaxpyPath::SERIAL_SIMD;
  return SaxpyPath::PARALLEL_SIMD;
}

tunekit::Error SaxpyKernel::run(double alpha, const tunekit::tuning::Tensor& x, const tunekit::tuning::Tensor& y,
                                tunekit::tuning::Tensor& out, SaxpyPath path, int threads) const {
  using tunekit::DataType;
  if (!saxpy_openmp_simd_supports(x.type) || y.type != x.type || out.type != x.type) {
    return {tunekit::ErrorCode::INVALID_VALUE,
            fmt::format("Saxpy: x, y and out must all be float or all double (got {}, {}, {})",
                        tunekit::core::to_string(x.type), tunekit::core::to_string(y.type),
                        tunekit::core::to_string(out.type))};
  }
  const std::int64_t n = x.size();
  if (y.size() != n || out.size() != n) {
    return {tunekit::ErrorCode::INVALID_VALUE,
            fmt::format("Saxpy: x has {} elements, y {}, out {}", n, y.size(), out.size())};
  }
  if (path == SaxpyPath::AUTO) path = choose_path(n);
  const int team = threads > 0 ? threads : static_cast<int>(config_.maximum_threads);
  if (x.type == DataType::FLOAT) {
    dispatch<float>(path, alpha, x, y, out, n, team);
  } else {
    dispatch<double>(path, alpha, x, y, out, n, team);
  }
  return tunekit::Error::ok();
}

}  // namespace consumer
