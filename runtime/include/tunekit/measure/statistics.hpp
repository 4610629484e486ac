// Descriptive statistics over timing samples: small free functions over a
// span so that timing loops, calibration and reports compute them the same
// way. Nothing here allocates except median and MAD, which sort a copy.
#pragma once

#include <cstddef>
#include <span>

namespace tunekit::measure {

// Edge cases, the same for every function below:
//   - empty input: NaN (there is no meaningful value to report);
//   - any NaN in the input: NaN, so that a bad sample is never hidden;
//   - infinities follow IEEE arithmetic (the mean of {inf, 1} is inf).
double minimum(std::span<const double> values) noexcept;
double maximum(std::span<const double> values) noexcept;

// Arithmetic mean, kept inside [minimum, maximum]: rounding in the sum cannot
// move it outside, so all-equal values give that value exactly.
double mean(std::span<const double> values) noexcept;

// Population standard deviation (divides by N, not N - 1): the timings are
// the whole population being described, not a sample of a larger one.
// One value, or all values equal, gives exactly 0.
double population_stddev(std::span<const double> values) noexcept;

// Middle value; for an even count the midpoint of the two middle values.
// Sorts a copy: the input is left as it is.
double median(std::span<const double> values);

// Median absolute deviation from the median, unscaled (no 1.4826 factor).
// One value, or all values equal, gives exactly 0.
double median_absolute_deviation(std::span<const double> values);

// population_stddev / |mean|. A zero mean gives 0 when the stddev is 0 (all
// values are 0: perfectly stable) and +infinity otherwise. A negative mean
// uses its magnitude, so the result is never negative.
double coefficient_of_variation(std::span<const double> values) noexcept;

// All of the above at once. For empty input count is 0 and every other field NaN.
struct Summary {
  std::size_t count = 0;
  double min = 0.0;
  double max = 0.0;
  double mean = 0.0;
  double stddev = 0.0;  // population
  double median = 0.0;
  double mad = 0.0;     // unscaled median absolute deviation
  double cov = 0.0;     // coefficient of variation
};

Summary summarize(std::span<const double> values);

}  // namespace tunekit::measure
