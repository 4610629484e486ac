// Waiting for the other threads of the process to sleep, from their states
// in /proc/self/task (Linux); elsewhere nothing can be seen and nothing is
// waited for.
#include "tunekit/measure/settle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#endif

namespace tunekit::measure {
namespace {

#ifdef __linux__
// The state letter of one thread, or 0 when its stat cannot be read (it may
// have exited between the directory read and the open). The command name in
// parentheses may hold spaces and parentheses, so the state is found after
// the last ')'.
char thread_state(const char* tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[512];
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  const char* close_paren = std::strrchr(buffer, ')');
  if (close_paren == nullptr || close_paren[1] != ' ') return 0;
  return close_paren[2];
}

// Counts the runnable threads other than the caller; -1 when /proc is not readable.
int count_busy(int* threads) {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  const long self = static_cast<long>(::syscall(SYS_gettid));
  int busy = 0, seen = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    ++seen;
    if (std::strtol(entry->d_name, nullptr, 10) == self) continue;
    if (thread_state(entry->d_name) == 'R') ++busy;
  }
  ::closedir(dir);
  if (threads) *threads = seen;
  return seen == 0 ? -1 : busy;
}
#else
int count_busy(int*) { return -1; }
#endif

}  // namespace

int busy_other_threads() { return count_busy(nullptr); }

SettleReport settle_threads(const SettleOptions& options) {
  using Clock = std::chrono::steady_clock;
  SettleReport report;
  int busy = count_busy(&report.threads);
  const auto first_look = Clock::now();
  if (busy < 0) {
    report.settled = true;
    return report;
  }
  report.supported = true;
  report.busy_at_start = busy;
  const double timeout_ms = std::isfinite(options.timeout_ms) && options.timeout_ms > 0.0 ? options.timeout_ms : 0.0;
  const double poll_ms = std::isfinite(options.poll_interval_ms) && options.poll_interval_ms > 0.0
                             ? options.poll_interval_ms
                             : 0.1;
  const auto poll = std::chrono::duration<double, std::milli>(poll_ms);
  auto last_look = first_look;
  auto since_first_look_ms = [&](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(t - first_look).count();
  };
  while (busy > 0 && since_first_look_ms(last_look) < timeout_ms) {
    std::this_thread::sleep_for(poll);
    busy = std::max(count_busy(&report.threads), 0);
    last_look = Clock::now();
  }
  report.waited_ms = since_first_look_ms(last_look);
  report.busy_at_end = busy;
  report.settled = busy == 0;
  return report;
}

std::string describe(const SettleReport& report) {
  if (!report.supported) return "the other threads' states cannot be read here";
  if (report.settled) {
    return report.busy_at_start == 0
               ? std::string("every other thread was asleep")
               : fmt::format("{} other thread{} went to sleep within {:.1f} ms", report.busy_at_start,
                             report.busy_at_start == 1 ? "" : "s", report.waited_ms);
  }
  return fmt::format("{} other thread{} still running after {:.1f} ms", report.busy_at_end,
                     report.busy_at_end == 1 ? " was" : "s were", report.waited_ms);
}

}  // namespace tunekit::measure
