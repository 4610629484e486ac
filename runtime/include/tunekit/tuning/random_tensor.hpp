// Deterministic synthetic inputs for calibration: the same element type,
// shape and seed give the same bytes on every run and platform. Floating
// types are standard normal, integers a scaled and clamped normal, BOOL a
// fair coin, so an input is never all zeros.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/element_compare.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::tuning {

using Shape = std::vector<std::int64_t>;

// Product of the dimensions (1 for a scalar); -1 when a dimension is negative.
std::int64_t element_count(const Shape& shape) noexcept;
std::string to_string(const Shape& shape);  // "[4, 1, 8]"

// Allocates `bytes` of memory for a tensor; empty: aligned host memory.
using TensorAllocator = std::function<Result<platform::DeviceBuffer>(std::size_t bytes)>;

struct Tensor {
  DataType type = DataType::FLOAT;
  Shape shape;
  platform::DeviceBuffer buffer;

  std::int64_t size() const noexcept { return element_count(shape); }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size()) * core::size_of(type); }
  void* data() const noexcept { return buffer.data(); }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(buffer.data());
  }
  // Element i converted to double (float16/bfloat16 decoded, BOOL as 0/1).
  double element(std::int64_t i) const noexcept;
};

// An uninitialised tensor (for outputs).
Result<Tensor> EmptyTensor(DataType type, Shape shape, const TensorAllocator& allocator = {});

Result<Tensor> RandnTensor(DataType type, Shape shape, std::uint64_t seed, const TensorAllocator& allocator = {});

// One tensor per shape, each from its own seed derived from `seed` and its
// position, so operands of a binary kernel differ from each other.
Result<std::vector<Tensor>> RandnOperands(DataType type, std::span<const Shape> shapes, std::uint64_t seed,
                                          const TensorAllocator& allocator = {});

// The numpy broadcast of two shapes; INVALID_VALUE naming both when a pair
// of dimensions is neither equal nor 1.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Whether a and b broadcast to exactly `out`, without building a shape: the
// check of a kernel's hot path (broadcast_shapes then says what is wrong).
bool broadcasts_to(const Shape& a, const Shape& b, const Shape& out) noexcept;

// What compare_tensors' tolerance is relative to (core/element_compare.hpp).
using ToleranceScale = core::ToleranceScale;

// Element-by-element comparison (core::compare_elements): |expected - actual| <= tolerance times the
// scale. The error names the first differing index and both values.
Error compare_tensors(const Tensor& expected, const Tensor& actual, double tolerance = 0.0,
                      ToleranceScale scale = ToleranceScale::AT_LEAST_ONE);

// Fills every byte with a pattern that no kernel writes by accident (NaN for
// floating types), so an output element a kernel forgot to write is caught.
void poison(Tensor& tensor) noexcept;

}  // namespace tunekit::tuning
