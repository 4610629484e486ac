// Element types of tensors and kernel instances, with stable names that are
// written to profiles, caches and graph files.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace tunekit::core {

enum class DataType {
  FLOAT,
  DOUBLE,
  FLOAT16,
  BFLOAT16,
  INT8,
  UINT8,
  INT32,
  INT64,
  BOOL,
};

// Every DataType, in declaration order.
std::span<const DataType> all_data_types() noexcept;

// Bytes per element: 4, 8, 2, 2, 1, 1, 4, 8, 1.
std::size_t size_of(DataType type) noexcept;

// Lower-case stable name: "float", "double", "float16", "bfloat16", "int8",
// "uint8", "int32", "int64", "bool".
std::string_view to_string(DataType type) noexcept;

// Accepts the stable name in any letter case, plus the common aliases
// "float32", "fp32", "float64", "fp64", "half", "fp16", "bf16".
std::optional<DataType> parse_data_type(std::string_view name) noexcept;

bool is_floating_point(DataType type) noexcept;

}  // namespace tunekit::core

namespace tunekit {
using core::DataType;
}  // namespace tunekit
