// The race: rounds of interleaved samples, eliminations by compare_times.
#include "tunekit/measure/race.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sample_checks.hpp"
#include "tunekit/measure/statistics.hpp"

namespace tunekit::measure {
namespace {

bool racing(const RaceEntry& entry) { return !entry.measured.failed && entry.eliminated_after_round < 0; }

// Takes one sample; a failure or a rejected sample ends the entry's race.
void take_sample(RaceEntry& entry, const TimeOnce& time_once, int round) {
  MeasureOutcome& m = entry.measured;
  ++m.iterations_run;
  Result<double> sample = time_once(round);
  if (!sample.ok()) {
    detail::fail(m, sample.error().code(), fmt::format("iteration {}: {}", round, sample.error().message()));
    return;
  }
  if (auto reason = detail::reject_reason(*sample, round)) {
    detail::fail(m, ErrorCode::EXECUTION_FAILED, std::move(*reason));
    return;
  }
  m.samples.push_back(*sample);
}

// Compares every racer with the leader (smallest median), eliminates the
// slower ones and says whether the race is decided.
std::optional<RaceEnd> judge(std::vector<RaceEntry>& entries, const ComparisonConfig& comparison, int round) {
  std::vector<std::size_t> racers;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (racing(entries[i])) racers.push_back(i);
  }
  if (racers.empty()) return RaceEnd::ALL_FAILED;
  if (racers.size() == 1) return RaceEnd::ONE_LEFT;
  std::vector<double> medians(entries.size(), 0.0);
  for (std::size_t i : racers) medians[i] = median(entries[i].measured.samples);
  // The first of equal medians leads, so the choice does not depend on sort stability.
  const std::size_t leader = *std::min_element(racers.begin(), racers.end(),
                                               [&](std::size_t x, std::size_t y) { return medians[x] < medians[y]; });
  bool all_tied = true;
  int left = 0;
  for (std::size_t i : racers) {
    if (i == leader) continue;
    RaceEntry& entry = entries[i];
    entry.against_leader = compare_times(entry.measured.samples, entries[leader].measured.samples, comparison);
    if (entry.against_leader.verdict == Verdict::SLOWER) {
      entry.eliminated_after_round = round;
      entry.measured.converged = true;  // its race ended with a decision
      continue;
    }
    ++left;
    if (entry.against_leader.verdict != Verdict::TIE) all_tied = false;
  }
  if (left == 0) return RaceEnd::ONE_LEFT;
  if (all_tied) return RaceEnd::ALL_TIED;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RaceEnd end) noexcept {
  switch (end) {
    case RaceEnd::ONE_LEFT: return "one_left";
    case RaceEnd::ALL_TIED: return "all_tied";
    case RaceEnd::ROUND_LIMIT: return "round_limit";
    case RaceEnd::ALL_FAILED: return "all_failed";
    case RaceEnd::INVALID: return "invalid";
  }
  return "unknown";
}

RaceOutcome run_race(const MeasureConfig& config, const ComparisonConfig& comparison,
                     std::span<const TimeOnce> candidates) {
  RaceOutcome outcome;
  Error invalid = config.strategy == Strategy::RACE
                      ? validate(config)
                      : Error{ErrorCode::INVALID_VALUE,
                              fmt::format("run_race needs strategy race, got {}", to_string(config.strategy))};
  if (invalid.is_bad()) {
    outcome.message = "invalid measure config: " + invalid.message();
  } else if (Error bad = validate(comparison); bad.is_bad()) {
    outcome.message = "invalid comparison config: " + bad.message();
  } else if (std::any_of(candidates.begin(), candidates.end(), [](const TimeOnce& t) { return !t; })) {
    outcome.message = "a candidate has no time_once callable";
  }
  outcome.entries.resize(candidates.size());
  if (!outcome.message.empty()) {
    for (RaceEntry& entry : outcome.entries) detail::fail(entry.measured, ErrorCode::INVALID_VALUE, outcome.message);
    return outcome;
  }

  std::optional<RaceEnd> end;
  for (int round = 0; round < config.max_iterations && !end; ++round) {
    const std::size_t n = candidates.size();
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t i = (static_cast<std::size_t>(round) + step) % n;
      if (!racing(outcome.entries[i])) continue;
      take_sample(outcome.entries[i], candidates[i], round);
      ++outcome.samples_taken;
    }
    outcome.rounds = round + 1;
    if (outcome.rounds >= config.race_min_samples) {
      end = judge(outcome.entries, comparison, round);
    } else if (std::none_of(outcome.entries.begin(), outcome.entries.end(), racing)) {
      end = RaceEnd::ALL_FAILED;
    }
  }
  outcome.end = end.value_or(RaceEnd::ROUND_LIMIT);
  for (RaceEntry& entry : outcome.entries) {
    MeasureOutcome& m = entry.measured;
    if (!m.failed && entry.eliminated_after_round < 0) m.converged = outcome.end != RaceEnd::ROUND_LIMIT;
    detail::fill_statistics(m);
  }
  return outcome;
}

}  // namespace tunekit::measure
