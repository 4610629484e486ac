// The serial/parallel decision of the Gemm calibrations (the product's team
// and the half types' conversions): sizes are measured in growing order, and
// the team must beat one thread by the margin at two consecutive sizes. The
// crossover is then the geometric middle between the last size one thread
// won and the first of the team's two wins (that size itself when one thread
// never won).
#pragma once

#include <cmath>
#include <optional>

namespace tunekit::cpu::gemm_detail {

class TeamCrossover {
 public:
  explicit TeamCrossover(double margin) noexcept : margin_(margin) {}

  // Records one size's medians; true once the team has won twice in a row
  // (the search can stop).
  bool record(double size, double one_thread_ms, double team_ms) noexcept {
    if (team_ms < one_thread_ms * (1.0 - margin_)) {
      if (team_wins_++ == 0) team_from_ = size;
    } else {
      team_wins_ = 0;
      serial_until_ = size;
    }
    return team_wins_ >= 2;
  }

  // The crossover size, or nothing when the team has not won twice in a row.
  std::optional<double> crossover() const noexcept {
    if (team_wins_ < 2) return std::nullopt;
    return serial_until_ > 0 ? std::sqrt(serial_until_ * team_from_) : team_from_;
  }

 private:
  double margin_;
  double serial_until_ = 0;  // the last size one thread won (0: none)
  double team_from_ = 0;     // the first size of the team's current winning run
  int team_wins_ = 0;
};

}  // namespace tunekit::cpu::gemm_detail
