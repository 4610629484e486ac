// The pure decisions of bench_calibrated_vs_default (calibrated_vs_default_plan.hpp).
#include "calibrated_vs_default_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tunekit/measure/statistics.hpp"

namespace tunekit::bench {
namespace {

// e^power without overflow: saturates at the int64 maximum.
std::int64_t power_of(std::int64_t e, int power) {
  std::int64_t result = 1;
  for (int i = 0; i < power; ++i) {
    if (result > std::numeric_limits<std::int64_t>::max() / e) return std::numeric_limits<std::int64_t>::max();
    result *= e;
  }
  return result;
}

void push_unique_sorted(std::vector<std::int64_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

std::vector<std::int64_t> sizes_between(std::int64_t a, std::int64_t b) {
  const std::int64_t lo = std::min(a, b), hi = std::max(a, b);
  if (lo == hi || lo < 1) return {};
  const auto middle = static_cast<std::int64_t>(
      std::llround(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi - 1))));
  std::vector<std::int64_t> sizes = {lo, std::clamp(middle, lo, hi - 1), hi - 1};
  push_unique_sorted(sizes);
  return sizes;
}

std::int64_t agreeing_size(std::int64_t a, std::int64_t b) {
  const std::int64_t lo = std::min(a, b), hi = std::max(a, b);
  if (lo == hi || lo < 1) return 0;
  return lo > 1 ? lo - 1 : hi;
}

std::vector<std::int64_t> edges_between(std::int64_t a, std::int64_t b, int power) {
  const std::int64_t lo = std::min(a, b), hi = std::max(a, b);
  std::vector<std::int64_t> edges;
  for (std::int64_t size : sizes_between(a, b)) {
    auto e = std::max<std::int64_t>(1, std::llround(std::pow(static_cast<double>(size), 1.0 / power)));
    while (power_of(e, power) < lo) ++e;
    while (e > 1 && power_of(e, power) >= hi) --e;
    const std::int64_t p = power_of(e, power);
    if (p >= lo && p < hi) edges.push_back(e);
  }
  push_unique_sorted(edges);
  return edges;
}

std::int64_t agreeing_edge(std::int64_t a, std::int64_t b, int power) {
  const std::int64_t lo = std::min(a, b);
  if (a == b || lo <= 1) return 0;
  auto e = std::max<std::int64_t>(1, std::llround(std::pow(static_cast<double>(lo), 1.0 / power)));
  while (e > 0 && power_of(e, power) >= lo) --e;
  while (power_of(e + 1, power) < lo) ++e;
  return e;
}

Result<PairedSamples> interleave(const TimeSample& time_default, const TimeSample& time_calibrated, int repetitions) {
  if (repetitions < 1) {
    return Error(ErrorCode::INVALID_VALUE, "interleave: repetitions must be at least 1, got " +
                                               std::to_string(repetitions));
  }
  PairedSamples out;
  for (int r = 0; r < repetitions; ++r) {
    const bool default_first = r % 2 == 0;
    for (int half = 0; half < 2; ++half) {
      const bool is_default = (half == 0) == default_first;
      Result<double> ms = is_default ? time_default() : time_calibrated();
      if (!ms.ok()) return ms.error();
      (is_default ? out.default_ms : out.calibrated_ms).push_back(*ms);
    }
  }
  return out;
}

PairedComparison compare_pairs(const PairedSamples& samples, double margin) {
  PairedComparison out;
  const std::size_t n = samples.default_ms.size();
  if (n == 0 || n != samples.calibrated_ms.size()) return out;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < n; ++i) {
    const double ratio = samples.default_ms[i] / samples.calibrated_ms[i];
    if (std::isnan(ratio)) return out;
    ratios.push_back(ratio);
  }
  std::sort(ratios.begin(), ratios.end());
  const std::size_t inner = n >= 5 ? 1 : 0;
  out.ratio = measure::median(ratios);
  out.low = ratios[inner];
  out.high = ratios[n - 1 - inner];
  out.verdict = out.high < 1.0 - margin ? Verdict::SLOWER : out.low > 1.0 + margin ? Verdict::FASTER : Verdict::SAME;
  return out;
}

Verdict confirm_slower(const PairedComparison& first, const PairedComparison& recheck) noexcept {
  if (first.verdict != Verdict::SLOWER) return first.verdict;
  return recheck.verdict == Verdict::SLOWER ? Verdict::SLOWER : Verdict::SAME;
}

std::string_view to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::FASTER: return "faster";
    case Verdict::SAME: return "same (noise)";
    case Verdict::SLOWER: return "SLOWER";
  }
  return "SLOWER";
}

}  // namespace tunekit::bench
