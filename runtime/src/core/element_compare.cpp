#include "tunekit/core/element_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tunekit/core/half_precision.hpp"

namespace tunekit::core {
namespace {

template <typename T>
T load(const void* data, std::int64_t i) noexcept {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(data) + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

}  // namespace

double load_element(DataType type, const void* data, std::int64_t i) noexcept {
  switch (type) {
    case DataType::FLOAT: return load<float>(data, i);
    case DataType::DOUBLE: return load<double>(data, i);
    case DataType::FLOAT16: return float16_to_float(load<std::uint16_t>(data, i));
    case DataType::BFLOAT16: return bfloat16_to_float(load<std::uint16_t>(data, i));
    case DataType::INT8: return load<std::int8_t>(data, i);
    case DataType::UINT8: return load<std::uint8_t>(data, i);
    case DataType::INT32: return load<std::int32_t>(data, i);
    case DataType::INT64: return static_cast<double>(load<std::int64_t>(data, i));
    case DataType::BOOL: return load<std::uint8_t>(data, i) ? 1.0 : 0.0;
  }
  return 0.0;
}

double smallest_normal(DataType type) noexcept {
  switch (type) {
    case DataType::FLOAT: return std::numeric_limits<float>::min();
    case DataType::DOUBLE: return std::numeric_limits<double>::min();
    case DataType::FLOAT16: return 6.103515625e-05;  // 2^-14
    case DataType::BFLOAT16: return std::numeric_limits<float>::min();
    default: return 0.0;
  }
}

ElementComparison compare_elements(DataType type, const void* expected, const void* actual, std::int64_t count,
                                   double tolerance, ToleranceScale scale) noexcept {
  ElementComparison result;
  const double floor = scale == ToleranceScale::RELATIVE ? smallest_normal(type) : 1.0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double e = load_element(type, expected, i);
    const double a = load_element(type, actual, i);
    ++result.compared;
    // Equal values match first: equal infinities differ by NaN. An infinity
    // matches only itself (a relative tolerance of one admits anything).
    if (e == a || (std::isnan(e) && std::isnan(a))) continue;
    const double error = std::isfinite(e) && std::isfinite(a) ? std::fabs(e - a) / std::max(floor, std::fabs(e))
                                                               : std::numeric_limits<double>::infinity();
    if (result.largest_index < 0 || error > result.largest_error) {
      result.largest_error = error;
      result.largest_index = i;
      result.largest_expected = e;
      result.largest_actual = a;
    }
    if (error <= tolerance) continue;
    if (result.mismatches++ == 0) {
      result.first_index = i;
      result.first_expected = e;
      result.first_actual = a;
    }
  }
  return result;
}

void poison_elements(DataType type, void* data, std::int64_t count) noexcept {
  if (count <= 0) return;
  const auto n = static_cast<std::size_t>(count);
  switch (type) {
    case DataType::FLOAT: std::fill_n(static_cast<float*>(data), n, std::numeric_limits<float>::quiet_NaN()); break;
    case DataType::DOUBLE: std::fill_n(static_cast<double*>(data), n, std::numeric_limits<double>::quiet_NaN()); break;
    case DataType::FLOAT16:
    case DataType::BFLOAT16: std::fill_n(static_cast<std::uint16_t*>(data), n, std::uint16_t{0x7FFF}); break;
    default: std::memset(data, 0xA5, n * size_of(type)); break;
  }
}

double engine_tolerance(DataType type) noexcept {
  switch (type) {
    case DataType::FLOAT: return 1e-3;
    case DataType::DOUBLE: return 1e-9;
    case DataType::FLOAT16: return 2e-2;
    case DataType::BFLOAT16: return 6e-2;
    default: return 0.0;
  }
}

std::string describe_mismatch(const ElementComparison& comparison, double tolerance) {
  if (comparison.agrees()) return {};
  return fmt::format("largest error {:.3g} (expected {}, got {} at element {}), {} of {} elements beyond the "
                     "tolerance {:g}",
                     comparison.largest_error, comparison.largest_expected, comparison.largest_actual,
                     comparison.largest_index, comparison.mismatches, comparison.compared, tolerance);
}

}  // namespace tunekit::core
