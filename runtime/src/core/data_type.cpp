// Sizes, names and parsing of DataType.
#include "tunekit/core/data_type.hpp"

#include <array>
#include <cctype>
#include <string>

namespace tunekit::core {
namespace {

struct DataTypeInfo {
  DataType type;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DataTypeInfo, 9> kInfo{{
    {DataType::FLOAT, "float", 4},
    {DataType::DOUBLE, "double", 8},
    {DataType::FLOAT16, "float16", 2},
    {DataType::BFLOAT16, "bfloat16", 2},
    {DataType::INT8, "int8", 1},
    {DataType::UINT8, "uint8", 1},
    {DataType::INT32, "int32", 4},
    {DataType::INT64, "int64", 8},
    {DataType::BOOL, "bool", 1},
}};

constexpr std::array<DataType, 9> kAll{DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16,
                                       DataType::BFLOAT16, DataType::INT8, DataType::UINT8,
                                       DataType::INT32, DataType::INT64, DataType::BOOL};

constexpr std::array<std::pair<std::string_view, DataType>, 7> kAliases{{
    {"float32", DataType::FLOAT},
    {"fp32", DataType::FLOAT},
    {"float64", DataType::DOUBLE},
    {"fp64", DataType::DOUBLE},
    {"half", DataType::FLOAT16},
    {"fp16", DataType::FLOAT16},
    {"bf16", DataType::BFLOAT16},
}};

const DataTypeInfo* find(DataType type) noexcept {
  for (const auto& info : kInfo) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

}  // namespace

std::span<const DataType> all_data_types() noexcept { return kAll; }

std::size_t size_of(DataType type) noexcept {
  const DataTypeInfo* info = find(type);
  return info ? info->size : 0;
}

std::string_view to_string(DataType type) noexcept {
  const DataTypeInfo* info = find(type);
  return info ? info->name : "unknown";
}

std::optional<DataType> parse_data_type(std::string_view name) noexcept {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& info : kInfo) {
    if (info.name == lower) return info.type;
  }
  for (const auto& [alias, type] : kAliases) {
    if (alias == lower) return type;
  }
  return std::nullopt;
}

bool is_floating_point(DataType type) noexcept {
  return type == DataType::FLOAT || type == DataType::DOUBLE || type == DataType::FLOAT16 ||
         type == DataType::BFLOAT16;
}

}  // namespace tunekit::core
