#include "progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

namespace tunekit::cli {
namespace {

bool draw_a_bar(std::FILE* out) {
  const char* chosen = std::getenv("TUNEKIT_PROGRESS");
  if (chosen != nullptr && std::string_view(chosen) == "bar") return true;
  if (chosen != nullptr && std::string_view(chosen) == "lines") return false;
  return isatty(fileno(out)) == 1;
}

}  // namespace

std::string format_duration(double seconds) {
  const auto whole = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  if (whole >= 3600) return fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60);
  return fmt::format("{}:{:02}", whole / 60, whole % 60);
}

std::string format_progress(std::size_t done, std::size_t total, double elapsed_seconds, std::string_view unit,
                            std::string_view item, std::size_t width) {
  const std::size_t filled = total == 0 ? width : std::min(width, done * width / total);
  const std::string left = done == 0 ? std::string("?")
                                     : format_duration(elapsed_seconds / static_cast<double>(done) *
                                                       static_cast<double>(total > done ? total - done : 0));
  std::string line = fmt::format("[{}{}] {}/{} {}  {} elapsed  ~{} left", std::string(filled, '#'),
                                 std::string(width - filled, '.'), done, total, unit, format_duration(elapsed_seconds),
                                 left);
  if (!item.empty()) line += fmt::format("  {}", item);
  return line;
}

ProgressBar::ProgressBar(std::string unit, std::size_t total, std::FILE* out)
    : unit_(std::move(unit)), total_(total), out_(out), bar_(draw_a_bar(out)) {}

void ProgressBar::draw(std::string_view item) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
  // \r and "erase to the end of the line": the bar is redrawn in place.
  fmt::print(out_, "\r{}\x1b[K", format_progress(done_, total_, elapsed, unit_, item));
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::start(std::string_view item) {
  item_start_ = std::chrono::steady_clock::now();
  item_ = item;
  if (bar_) {
    draw(item);
  } else {
    fmt::print(out_, "{} ...\n", item);
  }
}

void ProgressBar::finish(std::string_view item, std::string_view outcome) {
  const bool started = item == item_;
  const auto ms = started ? std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                                  item_start_).count()
                          : 0;
  ++done_;
  if (bar_) {
    // A finished item keeps a line of its own above the bar.
    clear();
    fmt::print(out_, "{} {} ({} ms)\n", item, outcome, ms);
    draw(done_ < total_ ? "" : "done");
    if (done_ >= total_) {
      fmt::print(out_, "\n");
      drawn_ = false;
    }
  } else {
    fmt::print(out_, "{} {} ({} ms)\n", item, outcome, ms);
  }
  std::fflush(out_);
}

void ProgressBar::clear() {
  if (!drawn_) return;
  fmt::print(out_, "\r\x1b[K");
  drawn_ = false;
}

}  // namespace tunekit::cli
