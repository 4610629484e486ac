// Progress of a long run (calibrate's keys, tune's shapes) on standard error:
// on a terminal a bar redrawn in place with the items done, the time elapsed
// and an estimate of the time left; otherwise (a log, a build) one line per
// item as it ends. TUNEKIT_PROGRESS=bar or =lines chooses either whatever
// standard error is.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace tunekit::cli {

// "[##########..........] 3/12 keys  0:42 elapsed  ~2:06 left  <item>": the
// bar `width` characters wide; the time left is the mean time per item done
// times the items left, "?" before the first is done.
std::string format_progress(std::size_t done, std::size_t total, double elapsed_seconds, std::string_view unit,
                            std::string_view item, std::size_t width = 20);

// "0:42", "12:05", "1:02:03".
std::string format_duration(double seconds);

class ProgressBar {
 public:
  // `unit`: "keys" or "shapes"; `total` items to come.
  ProgressBar(std::string unit, std::size_t total, std::FILE* out = stderr);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // An item starts: the bar names it (a line of its own without a bar).
  void start(std::string_view item);
  // It ends with `outcome` ("calibrated", "not_calibrated", ...): the bar
  // moves on; without one, a line "<item> <outcome> (<ms> ms)".
  void finish(std::string_view item, std::string_view outcome);
  // Clears the bar's line (call before printing anything else).
  void clear();
  bool drawing_bar() const noexcept { return bar_; }

 private:
  void draw(std::string_view item);

  std::string unit_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::FILE* out_;
  bool bar_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point run_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point item_start_ = run_start_;
  std::string item_;
};

}  // namespace tunekit::cli
