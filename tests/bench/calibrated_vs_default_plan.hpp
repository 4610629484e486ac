// The pure decisions of bench_calibrated_vs_default: which problem sizes lie
// between a portable default and its calibrated value (where the two
// configurations take different paths), the interleaved timing order and
// the verdict rule. Nothing here runs a kernel, so every rule is tested with
// exact values.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"

namespace tunekit::bench {

// For a threshold t with "n < t takes the lower path": the sizes where two
// thresholds a and b choose differently are [min, max - 1]. Returns the low
// end, the geometric middle and the high end of that range (each inside it),
// ascending and without duplicates; empty when a == b or either is below 1.
std::vector<std::int64_t> sizes_between(std::int64_t a, std::int64_t b);

// One size where both thresholds choose the same path: min - 1 (below both)
// when min > 1, else max (at or above both). 0 when a == b or either is below 1.
std::int64_t agreeing_size(std::int64_t a, std::int64_t b);

// Edges e (ascending, unique) whose power e^power lies in [min(a, b),
// max(a, b)), one near each of sizes_between(a, b): the cube edges of Gemm
// products (power 3) or the square edges of B (power 2) between two
// thresholds. Empty when no such edge exists (a == b, or no e^power between).
std::vector<std::int64_t> edges_between(std::int64_t a, std::int64_t b, int power);

// The largest edge e >= 1 with e^power < min(a, b): a product both
// thresholds put on the same side. 0 when there is none.
std::int64_t agreeing_edge(std::int64_t a, std::int64_t b, int power);

// Milliseconds per execution of one timed sample, or the error that stopped it.
using TimeSample = std::function<Result<double>()>;

struct PairedSamples {
  std::vector<double> default_ms, calibrated_ms;
};

// `repetitions` samples of each configuration, interleaved so that a slow
// phase of a shared machine hits both: even repetitions time the default
// first, odd ones the calibrated configuration first. The first error stops
// the loop and is returned. Fewer than 1 repetition: INVALID_VALUE.
Result<PairedSamples> interleave(const TimeSample& time_default, const TimeSample& time_calibrated, int repetitions);

// "Never slower beyond noise", judged on the pairs (repetition i times both
// configurations back to back, so a slow phase of the machine hits both of
// a pair): ratio is the median over the pairs of default_i / calibrated_i;
// [low, high] the second smallest and second largest of those ratios (the
// extremes with fewer than 5 pairs), an interval that holds the true median
// ratio with 87.5% probability for 7 pairs whatever the noise's shape (the
// sign test's order statistics). SLOWER when high < 1 - margin (the
// calibrated configuration lost by more than the margin in all pairs but one
// at most), FASTER when low > 1 + margin, else SAME; SLOWER also for no
// pairs, unequal counts or a NaN (nothing proves it is not).
enum class Verdict { FASTER, SAME, SLOWER };
struct PairedComparison {
  double ratio = 0, low = 0, high = 0;
  Verdict verdict = Verdict::SLOWER;
};
PairedComparison compare_pairs(const PairedSamples& samples, double margin = 0.05);
std::string_view to_string(Verdict verdict) noexcept;  // "faster", "same (noise)", "SLOWER"

// The verdict of a row found SLOWER and timed again later in the run (a
// second, independent set of pairs). A shared machine's slow phases can last
// a whole row: identical code on both sides (the "(same path)" rows) came out
// SLOWER in about one row of a hundred, each time in one of the two
// measurements only. SLOWER stands when the recheck is SLOWER too; otherwise
// the row is SAME: the two sets disagree, nothing is proven.
Verdict confirm_slower(const PairedComparison& first, const PairedComparison& recheck) noexcept;

}  // namespace tunekit::bench
