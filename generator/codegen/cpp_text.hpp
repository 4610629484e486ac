// C++ source text for generated headers: identifiers derived from names,
// and literals whose text is fixed for a value (shortest round-trip floats),
// so generated files are reproducible byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/value.hpp"
#include "tunekit/platform/cpu_features.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::codegen {

// "LayerNorm" -> "layer_norm", "Conv2DTranspose" -> "conv2d_transpose",
// "openmp_simd" -> "openmp_simd", "GEMM" -> "gemm".
std::string snake_case(std::string_view name);
// "openmp_simd" -> "OpenmpSimd".
std::string camel_case(std::string_view snake);

// A C++ string literal: quotes, backslashes and control bytes escaped.
std::string cpp_string(std::string_view text);
// A double literal that reads back as the same value: 0.5, 2.0, 1e+300
// (finite values only).
std::string cpp_double(double value);
// An int64 literal, also for the minimum value.
std::string cpp_int(std::int64_t value);
// The literal of a value of any tuning type.
std::string cpp_value(const core::Value& value);
// Fully qualified enumerators, e.g. ::tunekit::DataType::BFLOAT16,
// ::tunekit::platform::DeviceKind::HIP, ::tunekit::platform::CpuFeature::AVX512F:
// the persisted lower-case names are the enumerators' names in lower case.
std::string cpp_data_type(DataType type);
std::string cpp_device_kind(platform::DeviceKind device);
std::string cpp_cpu_feature(platform::CpuFeature feature);
// A comment's text on one line (line breaks become spaces).
std::string one_line(std::string_view text);

}  // namespace tunekit::codegen
