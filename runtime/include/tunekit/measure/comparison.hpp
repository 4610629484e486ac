// The one place that decides whether one candidate is faster than another.
// Autotune's ranking, racing and (through their parameters) calibration ask
// it, so "faster", "slower" and "a tie" mean the same thing everywhere.
//
// The test: a percentile bootstrap interval, at `confidence`, on the ratio of
// the two candidates' median times (A's over B's), each sample set resampled
// with replacement on its own. The tie band is an equivalence margin around
// 1 (symmetric in log space): with band b,
//   FASTER    the whole interval lies below 1 / (1 + b): A is faster by more than the band;
//   SLOWER    the whole interval lies above 1 + b;
//   TIE       the whole interval lies inside [1 / (1 + b), 1 + b]: equal within the band;
//   UNDECIDED the interval crosses an edge of the band: more samples are needed.
// The resampling uses a fixed seed, so the same samples always give the same
// verdict and interval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tunekit/core/error.hpp"

namespace tunekit::measure {

struct ComparisonConfig {
  double confidence = 0.95;  // two-sided, strictly between 0 and 1
  double tie_band = 0.02;    // relative; 0 makes every decided difference count
  int resamples = 1000;      // bootstrap resamples, at least 100
  std::uint64_t seed = 0x7475'6e65'6b69'74ULL;
};

// INVALID_VALUE naming the field and its value, or OK.
Error validate(const ComparisonConfig& config);

enum class Verdict { FASTER, SLOWER, TIE, UNDECIDED };
std::string_view to_string(Verdict verdict) noexcept;  // "faster", "slower", "tie", "undecided"

struct Comparison {
  Verdict verdict = Verdict::UNDECIDED;
  double ratio = 0.0;  // median(A) / median(B)
  double ratio_low = 0.0;   // the bootstrap interval on the ratio
  double ratio_high = 0.0;
  std::size_t a_samples = 0;
  std::size_t b_samples = 0;
};

// Compares A's timings with B's (milliseconds or any one unit). Fewer than two
// samples on either side, a non-positive or non-finite sample, or an invalid
// config give UNDECIDED with NaN figures: nothing can be claimed from them.
Comparison compare_times(std::span<const double> a, std::span<const double> b,
                         const ComparisonConfig& config = {});

// "0.982 [0.975, 0.990] at 95%: tie (tie band 2%)", for logs and tables.
std::string describe(const Comparison& comparison, const ComparisonConfig& config);

}  // namespace tunekit::measure
