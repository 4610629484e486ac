// The serial/parallel decision of the Gemm calibrations (the product's team
// and the half types' conversions): sizes are measured in growing order, and
// the team must beat one thread by the margin at two consecutive sizes (each
// size judged by tuning::judge, the comparison every calibration uses). The
// crossover is then the second of those wins, as in the elementwise
// crossover search: at the first the team won once, by little, and a
// benchmark found it 20% slower there (and 23% slower at the unmeasured
// geometric middle below it, the rule before that). A portable default that
// no measurement contradicts is kept (keeps()), as the elementwise search's
// preferred threshold is.
#pragma once

#include <limits>
#include <optional>

#include "tunekit/tuning/crossover_search.hpp"

namespace tunekit::cpu::gemm_detail {

class TeamCrossover {
 public:
  // Records one size's verdict, the team being the candidate and one thread
  // the baseline; true once the team has won twice in a row (the search can
  // stop). An overlap (a tie or an undecided comparison) is no win for either.
  bool record(double size, tuning::ProbeVerdict team_against_one_thread) noexcept {
    if (team_wins_ >= 2) return true;
    if (team_against_one_thread == tuning::ProbeVerdict::CANDIDATE_WINS) {
      if (++team_wins_ == 2) confirmed_ = size;
    } else {
      team_wins_ = 0;
      if (team_against_one_thread == tuning::ProbeVerdict::BASELINE_WINS) last_one_thread_win_ = size;
    }
    return team_wins_ >= 2;
  }

  // The crossover size, or nothing when the team has not won twice in a row.
  std::optional<double> crossover() const noexcept {
    if (team_wins_ < 2) return std::nullopt;
    return confirmed_;
  }

  // Whether `preferred` (a default crossover) agrees with the measurements:
  // the team has won twice in a row, `preferred` is at or below the size
  // that confirmed it, and one thread won by the margin at no size from
  // `preferred` on. Moving a default to the confirming size
  // would only give away the sizes between where the team already wins.
  bool keeps(double preferred) const noexcept {
    if (team_wins_ < 2 || preferred > confirmed_) return false;
    return preferred > last_one_thread_win_;
  }

  // Whether one thread won by the margin at `preferred` or above, where a
  // crossover at `preferred` would run the team.
  bool contradicts(double preferred) const noexcept { return last_one_thread_win_ >= preferred; }

 private:
  double confirmed_ = 0;  // the size of the team's second consecutive win
  int team_wins_ = 0;
  // The largest size one thread won by the margin (none: the lowest double).
  double last_one_thread_win_ = std::numeric_limits<double>::lowest();
};

}  // namespace tunekit::cpu::gemm_detail
