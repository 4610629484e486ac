// The bootstrap comparison of two timing sample sets.
#include "tunekit/measure/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tunekit/measure/statistics.hpp"

namespace tunekit::measure {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMinimumResamples = 100;

bool usable(std::span<const double> samples) {
  return samples.size() >= 2 && samples.size() <= std::numeric_limits<std::uint32_t>::max() &&
         std::all_of(samples.begin(), samples.end(), [](double s) { return std::isfinite(s) && s > 0.0; });
}

// A uniform index below n (sample counts fit 32 bits) from the high half of
// one 64-bit draw, by multiply-high: unlike std::uniform_int_distribution its
// result is the same on every standard library, so a verdict is reproducible
// everywhere.
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) {
  return static_cast<std::size_t>(((rng() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
}

// The median of a resample of `samples`, drawn into `scratch`; the same
// definition as statistics' median (midpoint of the two middle values).
double resampled_median(std::span<const double> samples, std::vector<double>& scratch, std::mt19937_64& rng) {
  const std::size_t n = samples.size();
  scratch.resize(n);
  for (std::size_t i = 0; i < n; ++i) scratch[i] = samples[draw_index(rng, n)];
  const auto middle = scratch.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(scratch.begin(), middle, scratch.end());
  if (n % 2 == 1) return *middle;
  const double lower = *std::max_element(scratch.begin(), middle);
  return lower + (*middle - lower) / 2.0;
}

Verdict decide(double low, double high, double band) {
  const double upper_edge = 1.0 + band;
  const double lower_edge = 1.0 / upper_edge;
  if (high < lower_edge) return Verdict::FASTER;
  if (low > upper_edge) return Verdict::SLOWER;
  if (low >= lower_edge && high <= upper_edge) return Verdict::TIE;
  return Verdict::UNDECIDED;
}

}  // namespace

Error validate(const ComparisonConfig& config) {
  if (!(config.confidence > 0.0 && config.confidence < 1.0)) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("confidence must be strictly between 0 and 1, got {}", config.confidence)};
  }
  if (!(config.tie_band >= 0.0 && config.tie_band < 1.0)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("tie_band must be at least 0 and below 1, got {}", config.tie_band)};
  }
  if (config.resamples < kMinimumResamples) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("resamples must be at least {}, got {}", kMinimumResamples, config.resamples)};
  }
  return Error::ok();
}

std::string_view to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::FASTER: return "faster";
    case Verdict::SLOWER: return "slower";
    case Verdict::TIE: return "tie";
    case Verdict::UNDECIDED: return "undecided";
  }
  return "unknown";
}

Comparison compare_times(std::span<const double> a, std::span<const double> b, const ComparisonConfig& config) {
  Comparison result;
  result.a_samples = a.size();
  result.b_samples = b.size();
  if (!usable(a) || !usable(b) || validate(config).is_bad()) {
    result.ratio = result.ratio_low = result.ratio_high = kNaN;
    return result;
  }
  result.ratio = median(a) / median(b);

  std::mt19937_64 rng(config.seed);
  std::vector<double> scratch;
  std::vector<double> ratios(static_cast<std::size_t>(config.resamples));
  for (double& ratio : ratios) {
    const double a_median = resampled_median(a, scratch, rng);
    ratio = a_median / resampled_median(b, scratch, rng);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - config.confidence) / 2.0;
  const double last = static_cast<double>(ratios.size() - 1);
  result.ratio_low = ratios[static_cast<std::size_t>(std::floor(tail * last))];
  result.ratio_high = ratios[static_cast<std::size_t>(std::ceil((1.0 - tail) * last))];
  result.verdict = decide(result.ratio_low, result.ratio_high, config.tie_band);
  return result;
}

std::string describe(const Comparison& comparison, const ComparisonConfig& config) {
  return fmt::format("{:.3f} [{:.3f}, {:.3f}] at {:g}%: {} (tie band {:g}%)", comparison.ratio, comparison.ratio_low,
                     comparison.ratio_high, config.confidence * 100.0, to_string(comparison.verdict),
                     config.tie_band * 100.0);
}

}  // namespace tunekit::measure
