// The one comparison of computed results with expected ones, element by
// element, for every data type: calibration checks a tuned path against the
// serial one with it, autotune checks each candidate engine against a
// reference engine with it, so both accept and reject alike.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/core/data_type.hpp"

namespace tunekit::core {

// What the tolerance is relative to.
enum class ToleranceScale {
  // max(1, |expected|): relative for large values, absolute below 1, as a
  // sum's rounding error is (a Gemm's element, whose terms may cancel).
  AT_LEAST_ONE,
  // max(|expected|, the type's smallest normal): relative down to the
  // subnormals, as an elementwise function's error is, so that a wrong
  // small result (even 0 for 1e-20) is caught.
  RELATIVE,
};

// Element i of an array of `type`, converted to double (float16 and
// bfloat16 decoded, BOOL as 0/1).
double load_element(DataType type, const void* data, std::int64_t i) noexcept;

// The smallest positive normal value of a floating type; 0 for the others
// (integers have no subnormals: the tolerance alone applies).
double smallest_normal(DataType type) noexcept;

// A result agrees with the expected one where both are equal (NaN matches
// NaN: an element neither wrote stays poisoned in both), or where neither
// is infinite and |expected - actual| <= tolerance x the scale.
struct ElementComparison {
  std::int64_t compared = 0;
  std::int64_t mismatches = 0;
  // The first element that disagrees (-1 when none).
  std::int64_t first_index = -1;
  double first_expected = 0.0;
  double first_actual = 0.0;
  // The largest error over the scale (infinite for an element that is NaN
  // or infinite on one side only), and where it is; -1 when every element
  // is equal.
  double largest_error = 0.0;
  std::int64_t largest_index = -1;
  double largest_expected = 0.0;
  double largest_actual = 0.0;

  bool agrees() const noexcept { return mismatches == 0; }
};

ElementComparison compare_elements(DataType type, const void* expected, const void* actual, std::int64_t count,
                                   double tolerance, ToleranceScale scale = ToleranceScale::AT_LEAST_ONE) noexcept;

// The tolerance (on the AT_LEAST_ONE scale) within which two correct
// engines' results of one graph agree: the rounding of sums of thousands of
// terms in another order, and of fused against separate steps. FLOAT 1e-3,
// DOUBLE 1e-9, FLOAT16 2e-2, BFLOAT16 6e-2, 0 for integer types and BOOL.
double engine_tolerance(DataType type) noexcept;

// Fills `count` elements with a pattern no kernel writes by accident (NaN
// for floating types, bytes of 0xA5 for the others), so that an output
// element a kernel forgot to write is caught by compare_elements.
void poison_elements(DataType type, void* data, std::int64_t count) noexcept;

// "largest error 0.5 (expected 1.25, got 0.75 at element 17), 12 of 4096
// elements beyond the tolerance 0.001"; "" when the comparison agrees.
std::string describe_mismatch(const ElementComparison& comparison, double tolerance);

}  // namespace tunekit::core
