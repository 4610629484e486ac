// `tunekit check --profiles DIR...`: recalibrates, on this machine, every key
// a committed processor profile covers here, starting from the committed
// values (calibrate --keep-unless-faster), and prints which values hold and
// which a challenger beat, with the calibration's reason and figures. A value
// changes only when a challenger is faster by the margin at 95% confidence,
// in a second calibration of the key as in the first, so a change means that
// a committed choice is significantly slower than the new best by more than
// the margin: exit 1. Nothing is written.
#pragma once

#include <string>
#include <vector>

namespace tunekit::cli {

struct ProfileCheckOptions {
  std::vector<std::string> folders;
  double margin_percent = 5.0;
  double key_time_budget_seconds = 10.0;
  bool json = false;
};

// The exit code: 0 when every committed value holds (or no profile covers
// this machine), 1 when one was beaten or a key failed, 2 for a profile
// that cannot be read.
int run_profile_check(const ProfileCheckOptions& options);

}  // namespace tunekit::cli
