// Finds the problem size from which a candidate path (SIMD, parallel) beats
// the baseline path, without scanning a grid: sizes double until the
// candidate wins twice in a row by the required margin, then bisection
// refines on both sides of the lowest two consecutive wins. Below them, a
// win counts only when a size between it and the lower of the two confirms
// it; above the lower one, a win brings the confirming size down.
// The threshold is the confirming (larger) size of the lowest two
// consecutive wins: at the first of them the candidate won once, by little,
// and a shared machine's noise undoes such a win as often as not.
// Refinement ends when the threshold is within the refine ratio (1.25) of
// the largest size below it that the candidate did not win, so a clean step
// is found within 25% (from a step of 9 on; below that no integer size fits)
// at a cost of four to six probes after the doubling and its confirmation;
// a loss between the two wins ends it early and keeps the farther
// confirmation. A preferred threshold (the portable default) that no probe
// contradicts is kept; a baseline win that would move it must be reproduced
// when measured again, as a candidate win needs its confirmation.
// Overlapping measurements never count as a win, so when nothing is clearly
// faster the caller keeps its portable default.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/measure/comparison.hpp"

namespace tunekit::tuning {

// Timings of both paths at one size, in milliseconds (at least one each).
struct PathTimings {
  std::vector<double> baseline_ms;
  std::vector<double> candidate_ms;
};

enum class ProbeVerdict { CANDIDATE_WINS, BASELINE_WINS, OVERLAP };
std::string_view to_string(ProbeVerdict verdict) noexcept;

struct CrossoverProbe {
  std::int64_t size = 0;
  double baseline_median = 0, candidate_median = 0;
  double baseline_mad = 0, candidate_mad = 0;
  // measure::compare_times of the candidate's samples against the
  // baseline's: the ratio of medians (candidate over baseline) and its
  // interval; NaN when either path has fewer than two samples.
  double ratio = 0, ratio_low = 0, ratio_high = 0;
  ProbeVerdict verdict = ProbeVerdict::OVERLAP;
  // The comparison could not tell the paths apart yet (its interval crosses
  // an edge of the band, or too few samples): more samples may decide it. An
  // overlap that is a tie within the band is decided.
  bool undecided = false;
};

// The one comparison of tunekit (measure/comparison.hpp), with `margin` as
// its tie band read on the faster side: the candidate wins when the whole
// interval of the ratio of medians (candidate over baseline), at
// `confidence`, lies below 1 - margin (0.05: faster by more than 5%); the
// baseline wins when the interval lies above 1 / (1 - margin); anything
// else (a tie, an undecided interval, fewer than two samples) overlaps.
CrossoverProbe judge(std::int64_t size, const PathTimings& timings, double margin, double confidence = 0.95);

// The comparison configuration behind judge: `margin` read on the faster
// side, so that FASTER means faster by more than `margin` (tie band
// margin / (1 - margin), since the band is symmetric in log space).
measure::ComparisonConfig margin_comparison(double margin, double confidence = 0.95);

struct CrossoverOptions {
  std::int64_t minimum_size = 1;
  std::int64_t maximum_size = 1 << 24;
  double margin = 0.05;
  double confidence = 0.95;  // of the comparison behind each verdict (judge)
  // Refinement stops once the threshold is at most this many times the
  // largest size below it the candidate did not win.
  double refine_ratio = 1.25;
  int maximum_probes = 48;
  // The threshold in use (the portable default): kept when the probes cannot
  // tell it from the crossover, that is when it is at most the confirmed
  // threshold and above every size whose latest measurement the baseline
  // won (a win at or above it is measured again before it counts).
  std::optional<std::int64_t> preferred_threshold;
};

// Measures both paths at a size; an error stops the search and is returned
// (a wrong result, an exhausted budget).
using CrossoverProbeFunction = std::function<Result<PathTimings>(std::int64_t size)>;

struct CrossoverResult {
  std::optional<std::int64_t> threshold;  // the candidate's path from this size on
  std::vector<CrossoverProbe> probes;     // in the order they were measured
  std::string reason;                     // why there is or is no threshold
};

Result<CrossoverResult> find_crossover(const CrossoverOptions& options, const CrossoverProbeFunction& probe);

}  // namespace tunekit::tuning
