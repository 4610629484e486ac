// Random tensors from std::mt19937_64 (its sequence is fixed by the C++
// standard) and an explicit Box-Muller transform, instead of
// std::normal_distribution whose output differs between standard libraries.
#include "tunekit/tuning/random_tensor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <random>

#include "tunekit/core/element_compare.hpp"
#include "tunekit/core/half_precision.hpp"

namespace tunekit::tuning {
namespace {

class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed) : engine_(seed) {}
  double uniform() {  // (0, 1): 53 random bits, never exactly 0
    return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
  }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

template <typename T>
T clamped(double value) {
  const double low = static_cast<double>(std::numeric_limits<T>::lowest());
  const double high = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(value), low, high));
}

Result<platform::DeviceBuffer> host_allocate(std::size_t bytes) {
  void* data = ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{64}, std::nothrow);
  if (data == nullptr) return Error(ErrorCode::EXECUTION_FAILED, fmt::format("cannot allocate {} bytes", bytes));
  return platform::DeviceBuffer(data, bytes, [](void* p) noexcept { ::operator delete(p, std::align_val_t{64}); });
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t index) {
  // splitmix64 finaliser: nearby seeds give unrelated streams.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::int64_t element_count(const Shape& shape) noexcept {
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return -1;
    count *= d;
  }
  return count;
}

std::string to_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

double Tensor::element(std::int64_t i) const noexcept { return core::load_element(type, data(), i); }

Result<Tensor> EmptyTensor(DataType type, Shape shape, const TensorAllocator& allocator) {
  const std::int64_t count = element_count(shape);
  if (count < 0) return Error(ErrorCode::INVALID_VALUE, fmt::format("shape {} has a negative dimension", to_string(shape)));
  Tensor tensor{type, std::move(shape), {}};
  Result<platform::DeviceBuffer> buffer = allocator ? allocator(tensor.bytes()) : host_allocate(tensor.bytes());
  if (!buffer.ok()) return buffer.error();
  if (buffer->size() < tensor.bytes()) {
    return Error(ErrorCode::EXECUTION_FAILED,
                 fmt::format("allocator returned {} bytes for a tensor of {} bytes", buffer->size(), tensor.bytes()));
  }
  tensor.buffer = std::move(buffer).value();
  return tensor;
}

Result<Tensor> RandnTensor(DataType type, Shape shape, std::uint64_t seed, const TensorAllocator& allocator) {
  Result<Tensor> made = EmptyTensor(type, std::move(shape), allocator);
  if (!made.ok()) return made;
  Tensor& t = *made;
  NormalSource source(seed);
  const std::int64_t n = t.size();
  for (std::int64_t i = 0; i < n; ++i) {
    switch (type) {
      case DataType::FLOAT: t.as<float>()[i] = static_cast<float>(source.normal()); break;
      case DataType::DOUBLE: t.as<double>()[i] = source.normal(); break;
      case DataType::FLOAT16: t.as<std::uint16_t>()[i] = core::float_to_float16(static_cast<float>(source.normal())); break;
      case DataType::BFLOAT16: t.as<std::uint16_t>()[i] = core::float_to_bfloat16(static_cast<float>(source.normal())); break;
      case DataType::INT8: t.as<std::int8_t>()[i] = clamped<std::int8_t>(source.normal() * 32.0); break;
      case DataType::UINT8: t.as<std::uint8_t>()[i] = clamped<std::uint8_t>(std::fabs(source.normal()) * 64.0); break;
      case DataType::INT32: t.as<std::int32_t>()[i] = clamped<std::int32_t>(source.normal() * 1000.0); break;
      case DataType::INT64: t.as<std::int64_t>()[i] = clamped<std::int64_t>(source.normal() * 1e6); break;
      case DataType::BOOL: t.as<std::uint8_t>()[i] = source.uniform() < 0.5 ? 1 : 0; break;
    }
  }
  return made;
}

Result<std::vector<Tensor>> RandnOperands(DataType type, std::span<const Shape> shapes, std::uint64_t seed,
                                          const TensorAllocator& allocator) {
  std::vector<Tensor> operands;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    Result<Tensor> t = RandnTensor(type, shapes[i], mix(seed, i), allocator);
    if (!t.ok()) return t.error();
    operands.push_back(std::move(t).value());
  }
  return operands;
}

namespace {

// The broadcast of dimension `back` (counted from the innermost) of a and b,
// or nothing when the two are neither equal nor 1.
std::optional<std::int64_t> broadcast_dimension(const Shape& a, const Shape& b, std::size_t back) noexcept {
  const std::int64_t da = back < a.size() ? a[a.size() - 1 - back] : 1;
  const std::int64_t db = back < b.size() ? b[b.size() - 1 - back] : 1;
  if (da != db && da != 1 && db != 1) return std::nullopt;
  return da == 1 ? db : da;
}

}  // namespace

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  Shape result(std::max(a.size(), b.size()), 1);
  for (std::size_t back = 0; back < result.size(); ++back) {
    const std::optional<std::int64_t> d = broadcast_dimension(a, b, back);
    if (!d) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("shapes {} and {} do not broadcast", to_string(a), to_string(b)));
    }
    result[result.size() - 1 - back] = *d;
  }
  return result;
}

bool broadcasts_to(const Shape& a, const Shape& b, const Shape& out) noexcept {
  if (out.size() != std::max(a.size(), b.size())) return false;
  for (std::size_t back = 0; back < out.size(); ++back) {
    const std::optional<std::int64_t> d = broadcast_dimension(a, b, back);
    if (!d || out[out.size() - 1 - back] != *d) return false;
  }
  return true;
}

Error compare_tensors(const Tensor& expected, const Tensor& actual, double tolerance, ToleranceScale scale) {
  if (expected.type != actual.type || expected.shape != actual.shape) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("tensors differ in type or shape: {} {} vs {} {}", core::to_string(expected.type),
                        to_string(expected.shape), core::to_string(actual.type), to_string(actual.shape))};
  }
  const core::ElementComparison comparison =
      core::compare_elements(expected.type, expected.data(), actual.data(), expected.size(), tolerance, scale);
  if (comparison.agrees()) return Error::ok();
  return {ErrorCode::EXECUTION_FAILED, fmt::format("wrong result at element {}: expected {}, got {}",
                                                   comparison.first_index, comparison.first_expected,
                                                   comparison.first_actual)};
}

void poison(Tensor& tensor) noexcept { core::poison_elements(tensor.type, tensor.data(), tensor.size()); }

}  // namespace tunekit::tuning
