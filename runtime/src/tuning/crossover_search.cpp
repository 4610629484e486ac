// Bracketing by doubling with a confirmation probe, then geometric bisection.
#include "tunekit/tuning/crossover_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

CrossoverProbe judge(std::int64_t size, const PathTimings& timings, double margin) {
  CrossoverProbe p;
  p.size = size;
  p.baseline_median = measure::median(timings.baseline_ms);
  p.candidate_median = measure::median(timings.candidate_ms);
  p.baseline_mad = measure::median_absolute_deviation(timings.baseline_ms);
  p.candidate_mad = measure::median_absolute_deviation(timings.candidate_ms);
  auto beats = [margin](double fast, double fast_mad, double slow, double slow_mad) {
    return fast <= slow * (1.0 - margin) && fast + fast_mad < slow - slow_mad;
  };
  if (beats(p.candidate_median, p.candidate_mad, p.baseline_median, p.baseline_mad)) {
    p.verdict = ProbeVerdict::CANDIDATE_WINS;
  } else if (beats(p.baseline_median, p.baseline_mad, p.candidate_median, p.candidate_mad)) {
    p.verdict = ProbeVerdict::BASELINE_WINS;
  } else {
    p.verdict = ProbeVerdict::OVERLAP;  // NaN medians land here too
  }
  return p;
}

namespace {

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
      options.margin >= 1.0 || !(options.refine_ratio > 1.0) || options.maximum_probes < 2) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("crossover options: sizes [{}, {}], margin {}, refine ratio {}, probes {} are not valid",
                             options.minimum_size, options.maximum_size, options.margin, options.refine_ratio,
                             options.maximum_probes));
  }
  CrossoverResult result;
  auto measure_at = [&](std::int64_t size) -> Result<ProbeVerdict> {
    Result<PathTimings> timings = probe(size);
    if (!timings.ok()) return timings.error();
    result.probes.push_back(judge(size, *timings, options.margin));
    return result.probes.back().verdict;
  };
  auto out_of_probes = [&] { return static_cast<int>(result.probes.size()) >= options.maximum_probes; };

  // Bracket: the first of two consecutive winning sizes.
  std::optional<std::int64_t> last_not_won;
  std::optional<std::int64_t> first_won;
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

  // Refine between the last size the candidate did not win and the first it
  // won, under the bracketing rule: a win moves the upper bound only when the
  // candidate also wins at the next size towards it. A win followed by a
  // loss is noise, and the loss becomes the new lower bound.
  std::int64_t high = *first_won;
  if (last_not_won && *last_not_won < high) {
    std::int64_t low = *last_not_won;
    while (static_cast<double>(high) / static_cast<double>(low) > options.refine_ratio && !out_of_probes()) {
      const std::int64_t middle = geometric_middle(low, high);
      if (middle <= low || middle >= high) break;
      Result<ProbeVerdict> verdict = measure_at(middle);
      if (!verdict.ok()) return verdict.error();
      if (*verdict != ProbeVerdict::CANDIDATE_WINS) {
        low = middle;
        continue;
      }
      const std::int64_t next = geometric_middle(middle, high);
      if (next <= middle || next >= high || out_of_probes()) break;  // unconfirmed: keep the confirmed bound
      Result<ProbeVerdict> confirm = measure_at(next);
      if (!confirm.ok()) return confirm.error();
      if (*confirm == ProbeVerdict::CANDIDATE_WINS) {
        high = middle;
      } else {
        low = next;
      }
    }
  }
  // The confirming size of the lowest pair of wins: every probe at or above
  // `high` won, and the smallest one above it confirmed `high`.
  std::int64_t confirmed = high;
  std::optional<std::int64_t> last_baseline_win;
  for (const CrossoverProbe& p : result.probes) {
    if (p.size > high && (confirmed == high || p.size < confirmed)) confirmed = p.size;
  }
  // A confirmation far above `high` would give away the sizes between them:
  // wins in between bring it closer (a loss there keeps the far one).
  while (static_cast<double>(confirmed) / static_cast<double>(high) > options.refine_ratio && !out_of_probes()) {
    const std::int64_t middle = geometric_middle(high, confirmed);
    if (middle <= high || middle >= confirmed) break;
    Result<ProbeVerdict> verdict = measure_at(middle);
    if (!verdict.ok()) return verdict.error();
    if (*verdict != ProbeVerdict::CANDIDATE_WINS) break;
    confirmed = middle;
  }
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
