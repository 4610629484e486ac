// Racing: the candidates' timed runs interleaved in rounds, and candidates
// the comparison shows slower than the leader dropped as soon as it can tell.
// Like run_timed_loop it is a pure function over injected "time once"
// callables, so every rule is tested with scripted timings on the host.
//
// Each round takes one sample from every candidate still racing, starting
// one candidate further along each round, so that no candidate always runs
// right after the same other one. From round race_min_samples on, the leader
// is the racer with the smallest median; a racer that compare_times calls
// SLOWER than the leader is eliminated. The race ends when one racer is left,
// when every racer ties with the leader, or after max_iterations rounds.
#pragma once

#include <span>
#include <vector>

#include "tunekit/measure/comparison.hpp"
#include "tunekit/measure/measure_config.hpp"
#include "tunekit/measure/timed_run_loop.hpp"

namespace tunekit::measure {

enum class RaceEnd {
  ONE_LEFT,      // every other candidate was eliminated or failed
  ALL_TIED,      // the survivors tie with the leader within the tie band
  ROUND_LIMIT,   // max_iterations rounds ran without a decision
  ALL_FAILED,    // no candidate produced samples to the end
  INVALID,       // the config or the callables were not usable: nothing ran
};
std::string_view to_string(RaceEnd end) noexcept;  // "one_left", "all_tied", ...

struct RaceEntry {
  MeasureOutcome measured;  // samples and statistics, or the failure (as run_timed_loop reports it)
  // The 0-based round after which the comparison eliminated it; -1 when it
  // raced to the end (or failed).
  int eliminated_after_round = -1;
  Comparison against_leader;  // the comparison that eliminated it, or the last one made against the leader
};

struct RaceOutcome {
  std::vector<RaceEntry> entries;  // one per candidate, in the candidates' order
  RaceEnd end = RaceEnd::INVALID;
  int rounds = 0;
  int samples_taken = 0;  // calls to the time_once callables, over all candidates
  std::string message;    // why the race was invalid; empty otherwise
};

// Races the candidates under config (strategy RACE, validated as for
// run_timed_loop) with comparison's confidence and tie band. A candidate's
// failed or rejected sample (NaN, infinite, negative) ends its race, reported
// in its entry; the others go on. Exceptions from time_once propagate.
RaceOutcome run_race(const MeasureConfig& config, const ComparisonConfig& comparison,
                     std::span<const TimeOnce> candidates);

}  // namespace tunekit::measure
