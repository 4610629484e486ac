// Bit-level conversions: float16 handles subnormals, infinities and NaN;
// bfloat16 is the upper half of a float, rounded to nearest even.
#include "tunekit/core/half_precision.hpp"

#include <bit>
#include <cmath>

namespace tunekit::core {

std::uint16_t float_to_float16(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFF) {  // infinity or NaN (keep NaN quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
  }
  const int unbiased = static_cast<int>(exponent) - 127;
  if (unbiased > 15) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow to infinity
  if (unbiased >= -14) {  // normal float16
    std::uint32_t half = sign | (static_cast<std::uint32_t>(unbiased + 15) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1FFFu;
    // Round to nearest even; a carry may ripple into the exponent, which is
    // exactly the right result (up to infinity).
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(half);
  }
  if (unbiased < -25) return static_cast<std::uint16_t>(sign);  // underflow to zero
  // Subnormal float16: shift the mantissa with its implicit bit.
  mantissa |= 0x800000u;
  const int shift = -unbiased - 14 + 13;  // 14..24
  std::uint32_t half = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float float16_to_float(std::uint16_t bits) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  const std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16(float value) noexcept {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // stays NaN
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest even
  return static_cast<std::uint16_t>(bits >> 16);
}

float bfloat16_to_float(std::uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace tunekit::core
