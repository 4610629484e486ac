// Overflow-checked 64-bit integer arithmetic for sizes computed from user
// input (tensor dims, strides, byte counts): an overflowing product or sum is
// undefined behaviour in C++, so every such computation goes through here and
// gets nullopt instead of a wrapped value.
#pragma once

#include <cstdint>
#include <optional>

namespace tunekit::core {

// a * b, or nullopt when the exact product does not fit in int64.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// a + b, or nullopt when the exact sum does not fit in int64.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// a - b, or nullopt when the exact difference does not fit in int64.
inline std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) return std::nullopt;
  return difference;
}

}  // namespace tunekit::core
