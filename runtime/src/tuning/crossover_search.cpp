// Bracketing by doubling with a confirmation probe, then geometric bisection
// on both sides of the lowest pair of wins.
#include "tunekit/tuning/crossover_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tunekit/measure/comparison.hpp"
#include "tunekit/measure/statistics.hpp"

namespace tunekit::tuning {

std::string_view to_string(ProbeVerdict verdict) noexcept {
  switch (verdict) {
    case ProbeVerdict::CANDIDATE_WINS: return "candidate_wins";
    case ProbeVerdict::BASELINE_WINS: return "baseline_wins";
    case ProbeVerdict::OVERLAP: return "overlap";
  }
  return "unknown";
}

measure::ComparisonConfig margin_comparison(double margin, double confidence) {
  measure::ComparisonConfig config;
  config.confidence = confidence;
  // compare_times's band is symmetric in log space: 1 / (1 + band) = 1 - margin.
  config.tie_band = margin / (1.0 - margin);
  return config;
}

CrossoverProbe judge(std::int64_t size, const PathTimings& timings, double margin, double confidence) {
  CrossoverProbe p;
  p.size = size;
  p.baseline_median = measure::median(timings.baseline_ms);
  p.candidate_median = measure::median(timings.candidate_ms);
  p.baseline_mad = measure::median_absolute_deviation(timings.baseline_ms);
  p.candidate_mad = measure::median_absolute_deviation(timings.candidate_ms);
  const measure::Comparison c =
      measure::compare_times(timings.candidate_ms, timings.baseline_ms, margin_comparison(margin, confidence));
  p.ratio = c.ratio;
  p.ratio_low = c.ratio_low;
  p.ratio_high = c.ratio_high;
  switch (c.verdict) {
    case measure::Verdict::FASTER: p.verdict = ProbeVerdict::CANDIDATE_WINS; break;
    case measure::Verdict::SLOWER: p.verdict = ProbeVerdict::BASELINE_WINS; break;
    case measure::Verdict::TIE:
    case measure::Verdict::UNDECIDED: p.verdict = ProbeVerdict::OVERLAP; break;
  }
  p.undecided = c.verdict == measure::Verdict::UNDECIDED;
  return p;
}

namespace {

double ratio(std::int64_t a, std::int64_t b) { return static_cast<double>(a) / static_cast<double>(b); }

std::int64_t geometric_middle(std::int64_t low, std::int64_t high) {
  return static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(low) * static_cast<double>(high))));
}

// The largest size below `limit` whose latest measurement the baseline won.
std::optional<std::int64_t> latest_baseline_win_below(const std::vector<CrossoverProbe>& probes, std::int64_t limit) {
  std::optional<std::int64_t> largest;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const CrossoverProbe& p = probes[i];
    if (p.verdict != ProbeVerdict::BASELINE_WINS || p.size >= limit || (largest && p.size <= *largest)) continue;
    const bool measured_again = std::any_of(probes.begin() + static_cast<std::ptrdiff_t>(i) + 1, probes.end(),
                                            [&p](const CrossoverProbe& later) { return later.size == p.size; });
    if (!measured_again) largest = p.size;
  }
  return largest;
}

}  // namespace

Result<CrossoverResult> find_crossover(const CrossoverOptions& options, const CrossoverProbeFunction& probe) {
  if (options.minimum_size < 1 || options.maximum_size < options.minimum_size || !(options.margin >= 0.0) ||
      options.margin >= 1.0 || !(options.confidence > 0.0 && options.confidence < 1.0) ||
      !(options.refine_ratio > 1.0) || options.maximum_probes < 2) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("crossover options: sizes [{}, {}], margin {}, confidence {}, refine ratio {}, probes {} "
                             "are not valid",
                             options.minimum_size, options.maximum_size, options.margin, options.confidence,
                             options.refine_ratio,
                             options.maximum_probes));
  }
  CrossoverResult result;
  auto measure_at = [&](std::int64_t size) -> Result<ProbeVerdict> {
    Result<PathTimings> timings = probe(size);
    if (!timings.ok()) return timings.error();
    result.probes.push_back(judge(size, *timings, options.margin, options.confidence));
    return result.probes.back().verdict;
  };
  auto out_of_probes = [&] { return static_cast<int>(result.probes.size()) >= options.maximum_probes; };

  // Bracket: the first of two consecutive winning sizes, and its confirmation.
  std::optional<std::int64_t> last_not_won;
  std::optional<std::int64_t> first_won;
  std::int64_t confirmed = 0;
  std::int64_t size = options.minimum_size;
  while (!first_won) {
    if (out_of_probes()) {
      result.reason = "probe limit reached before two consecutive wins";
      return result;
    }
    Result<ProbeVerdict> verdict = measure_at(size);
    if (!verdict.ok()) return verdict.error();
    if (*verdict == ProbeVerdict::CANDIDATE_WINS) {
      const std::int64_t next = size >= options.maximum_size ? size : std::min(size * 2, options.maximum_size);
      if (next == size || out_of_probes()) {
        result.reason = fmt::format("the candidate won at {} but no larger size was left to confirm it", size);
        return result;
      }
      Result<ProbeVerdict> confirm = measure_at(next);
      if (!confirm.ok()) return confirm.error();
      if (*confirm == ProbeVerdict::CANDIDATE_WINS) {
        first_won = size;
        confirmed = next;
        break;
      }
      last_not_won = next;
      size = next;
    } else {
      last_not_won = size;
    }
    if (size >= options.maximum_size) {
      result.reason = fmt::format("no two consecutive wins by {:g}% up to size {}", options.margin * 100,
                                  options.maximum_size);
      return result;
    }
    size = std::min(size * 2, options.maximum_size);
  }

  // Refine. `high` and `confirmed` are the lowest two consecutive wins and
  // `low` the largest size below them the candidate did not win (none when
  // it won from the minimum). The threshold is `confirmed`, so the search
  // goes on until confirmed / low is within the refine ratio: the step lies
  // between them. Splitting the gap below `high` needs a win confirmed by a
  // win between it and `high` (a win followed by a loss is noise, and the
  // loss becomes the new `low`); splitting the gap above it needs one win,
  // and a loss there keeps the far confirmation and ends the search.
  std::int64_t high = *first_won;
  std::optional<std::int64_t> low = last_not_won;
  while (!out_of_probes() && ratio(confirmed, low ? *low : high) > options.refine_ratio) {
    const std::int64_t above = geometric_middle(high, confirmed);
    const std::int64_t below = low ? geometric_middle(*low, high) : 0;
    const bool can_close = above > high && above < confirmed;
    const bool can_split = low && below > *low && below < high;
    if (!can_close && !can_split) break;  // no size left between the bounds
    bool split_below = !can_close;
    if (can_close && can_split) {
      // The cheapest step first: one win above that would end the search;
      // then a gap wider than the ratio, the one below first (a confirmed win
      // there moves both `high` and `confirmed` down); then the wider gap.
      const double gap_below = ratio(high, *low), gap_above = ratio(confirmed, high);
      const bool win_above_ends = static_cast<double>(above) <= options.refine_ratio * static_cast<double>(*low);
      split_below = !win_above_ends && (gap_below > options.refine_ratio ||
                                        (gap_above <= options.refine_ratio && gap_below >= gap_above));
    }
    if (!split_below) {
      Result<ProbeVerdict> verdict = measure_at(above);
      if (!verdict.ok()) return verdict.error();
      if (*verdict != ProbeVerdict::CANDIDATE_WINS) break;
      confirmed = above;
      continue;
    }
    Result<ProbeVerdict> verdict = measure_at(below);
    if (!verdict.ok()) return verdict.error();
    if (*verdict != ProbeVerdict::CANDIDATE_WINS) {
      low = below;
      continue;
    }
    const std::int64_t next = geometric_middle(below, high);
    if (next <= below || next >= high) {
      // No size between them: `high`, already won, is the next size.
      confirmed = high;
      high = below;
      continue;
    }
    if (out_of_probes()) break;  // unconfirmed: keep the confirmed bounds
    Result<ProbeVerdict> confirm = measure_at(next);
    if (!confirm.ok()) return confirm.error();
    if (*confirm == ProbeVerdict::CANDIDATE_WINS) {
      high = below;
      confirmed = next;
    } else {
      low = next;
    }
  }
  std::optional<std::int64_t> last_baseline_win;
  const std::optional<std::int64_t>& preferred = options.preferred_threshold;
  // A baseline win at or above the preferred threshold is what moves the
  // threshold away from it, so it must be reproduced, as a candidate win is
  // confirmed: the largest such size is measured again, and a size counts as
  // a baseline win only when its latest measurement is one. A win the probe
  // limit leaves unmeasured is unconfirmed, and the preferred threshold stays.
  std::vector<std::int64_t> rechecked;
  std::optional<std::int64_t> unconfirmed;
  for (;;) {
    last_baseline_win = latest_baseline_win_below(result.probes, confirmed);
    const bool blocks_preferred =
        preferred && *preferred <= confirmed && last_baseline_win && *last_baseline_win >= *preferred;
    if (!blocks_preferred ||
        std::find(rechecked.begin(), rechecked.end(), *last_baseline_win) != rechecked.end()) {
      break;
    }
    if (out_of_probes()) {
      unconfirmed = last_baseline_win;
      break;
    }
    rechecked.push_back(*last_baseline_win);
    Result<ProbeVerdict> verdict = measure_at(*last_baseline_win);
    if (!verdict.ok()) return verdict.error();
  }
  std::optional<std::string> kept_because;
  if (unconfirmed) {
    kept_because = fmt::format("the baseline's win at {} was not measured again (probe limit)", *unconfirmed);
  } else if (preferred && *preferred <= confirmed && (!last_baseline_win || *preferred > *last_baseline_win)) {
    kept_because = last_baseline_win ? fmt::format("the baseline last won at {}", *last_baseline_win)
                                     : std::string("the baseline won at no size");
  }
  if (kept_because) {
    result.threshold = *preferred;
    result.reason = fmt::format(
        "the candidate wins from size {} (two consecutive wins by at least {:g}%); the preferred threshold {} is kept: "
        "{}",
        confirmed, options.margin * 100, *preferred, *kept_because);
    return result;
  }
  result.threshold = confirmed;
  result.reason = fmt::format("the candidate wins from size {} (two consecutive wins by at least {:g}%, at {} and {})",
                              confirmed, options.margin * 100, high, confirmed);
  return result;
}

}  // namespace tunekit::tuning
