// Descriptive statistics over timing samples.
#include "tunekit/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace tunekit::measure {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Checked first by every statistic: NaN breaks the ordering that min, max and
// the sorts rely on, and the documented answer is NaN anyway.
bool is_undefined(std::span<const double> values) noexcept {
  return values.empty() ||
         std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

// Median of values that hold no NaN; sorts them in place.
double median_in_place(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  // std::midpoint neither overflows nor loses precision for huge values.
  if (n % 2 == 0) return std::midpoint(values[n / 2 - 1], values[n / 2]);
  return values[n / 2];
}

}  // namespace

double minimum(std::span<const double> values) noexcept {
  if (is_undefined(values)) return kNaN;
  return *std::min_element(values.begin(), values.end());
}

double maximum(std::span<const double> values) noexcept {
  if (is_undefined(values)) return kNaN;
  return *std::max_element(values.begin(), values.end());
}

double mean(std::span<const double> values) noexcept {
  if (is_undefined(values)) return kNaN;
  const double sum = std::accumulate(values.begin(), values.end(), 0.0);
  const double average = sum / static_cast<double>(values.size());
  if (std::isnan(average)) return average;  // inf + -inf
  return std::clamp(average, minimum(values), maximum(values));
}

double population_stddev(std::span<const double> values) noexcept {
  if (is_undefined(values)) return kNaN;
  // Two passes: summing squared deviations from the mean avoids the
  // cancellation of the E[x^2] - E[x]^2 form.
  const double average = mean(values);
  double squares = 0.0;
  for (double v : values) squares += (v - average) * (v - average);
  return std::sqrt(squares / static_cast<double>(values.size()));
}

double median(std::span<const double> values) {
  if (is_undefined(values)) return kNaN;
  std::vector<double> copy(values.begin(), values.end());
  return median_in_place(copy);
}

double median_absolute_deviation(std::span<const double> values) {
  if (is_undefined(values)) return kNaN;
  std::vector<double> work(values.begin(), values.end());
  const double center = median_in_place(work);
  for (double& v : work) v = std::fabs(v - center);
  return median_in_place(work);
}

double coefficient_of_variation(std::span<const double> values) noexcept {
  if (is_undefined(values)) return kNaN;
  const double stddev = population_stddev(values);
  const double magnitude = std::fabs(mean(values));
  if (magnitude == 0.0) return stddev == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return stddev / magnitude;
}

Summary summarize(std::span<const double> values) {
  Summary summary;
  summary.count = values.size();
  summary.min = minimum(values);
  summary.max = maximum(values);
  summary.mean = mean(values);
  summary.stddev = population_stddev(values);
  summary.median = median(values);
  summary.mad = median_absolute_deviation(values);
  summary.cov = coefficient_of_variation(values);
  return summary;
}

}  // namespace tunekit::measure
