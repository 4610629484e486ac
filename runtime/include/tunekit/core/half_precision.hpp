// Conversions between float and the two 16-bit floating-point formats,
// IEEE binary16 (FLOAT16) and bfloat16 (BFLOAT16), rounding to nearest even.
// Kernels and random tensors store these types as raw 16-bit patterns.
#pragma once

#include <cstdint>

namespace tunekit::core {

std::uint16_t float_to_float16(float value) noexcept;
float float16_to_float(std::uint16_t bits) noexcept;
std::uint16_t float_to_bfloat16(float value) noexcept;
float bfloat16_to_float(std::uint16_t bits) noexcept;

}  // namespace tunekit::core
