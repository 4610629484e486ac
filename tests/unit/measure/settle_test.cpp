// settle_threads() against real threads: one that spins for a while and then
// blocks (a library pool after its call), one that never stops until told
// (a pool told to spin forever), and none at all.
#include "tunekit/measure/settle.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace tunekit::measure {
namespace {

using Clock = std::chrono::steady_clock;

// A thread that spins until `spin_for` has passed, then sleeps on a
// condition variable until the test ends.
class SpinningThread {
 public:
  explicit SpinningThread(std::chrono::milliseconds spin_for) : thread_([this, spin_for] {
      const auto until = Clock::now() + spin_for;
      started_ = true;
      volatile unsigned sink = 0;
      while (Clock::now() < until && !stop_) sink = sink + 1;
      std::unique_lock lock(mutex_);
      done_.wait(lock, [this] { return stop_.load(); });
    }) {
    while (!started_) std::this_thread::yield();
  }
  ~SpinningThread() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    done_.notify_all();
    thread_.join();
  }

 private:
  std::atomic<bool> started_{false};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable done_;
  std::thread thread_;
};

bool proc_readable() { return busy_other_threads() >= 0; }

TEST(Settle, NothingToWaitForReturnsAtOnce) {
  if (!proc_readable()) GTEST_SKIP() << "thread states are not readable on this system";
  const SettleReport report = settle_threads();
  EXPECT_TRUE(report.supported);
  EXPECT_TRUE(report.settled);
  EXPECT_EQ(report.busy_at_start, 0);
  EXPECT_EQ(report.waited_ms, 0.0);
  EXPECT_GE(report.threads, 1);
  EXPECT_EQ(describe(report), "every other thread was asleep");
}

TEST(Settle, WaitsUntilASpinningThreadSleeps) {
  if (!proc_readable()) GTEST_SKIP() << "thread states are not readable on this system";
  const auto start = Clock::now();
  SpinningThread pool(std::chrono::milliseconds(60));
  EXPECT_EQ(busy_other_threads(), 1) << "the spinner is runnable while it spins";
  const SettleReport report = settle_threads({.timeout_ms = 2000.0, .poll_interval_ms = 0.2});
  const double since_start = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  EXPECT_TRUE(report.settled) << describe(report);
  EXPECT_EQ(report.busy_at_start, 1);
  EXPECT_EQ(report.busy_at_end, 0);
  EXPECT_GE(since_start, 60.0) << "returned while the thread was still spinning";
  EXPECT_GT(report.waited_ms, 0.0);
  EXPECT_LT(report.waited_ms, 1500.0);
  EXPECT_EQ(report.threads, 2);
  EXPECT_EQ(busy_other_threads(), 0);
  EXPECT_NE(describe(report).find("1 other thread went to sleep within"), std::string::npos) << describe(report);
}

TEST(Settle, GivesUpOnAThreadThatNeverSleeps) {
  if (!proc_readable()) GTEST_SKIP() << "thread states are not readable on this system";
  SpinningThread pool(std::chrono::hours(1));
  const SettleReport report = settle_threads({.timeout_ms = 40.0, .poll_interval_ms = 1.0});
  EXPECT_TRUE(report.supported);
  EXPECT_FALSE(report.settled);
  EXPECT_EQ(report.busy_at_end, 1);
  EXPECT_GE(report.waited_ms, 40.0);
  EXPECT_LT(report.waited_ms, 1000.0);
  EXPECT_NE(describe(report).find("1 other thread was still running after"), std::string::npos) << describe(report);
}

TEST(Settle, ZeroTimeoutLooksOnce) {
  if (!proc_readable()) GTEST_SKIP() << "thread states are not readable on this system";
  SpinningThread pool(std::chrono::hours(1));
  const SettleReport report = settle_threads({.timeout_ms = 0.0, .poll_interval_ms = 1.0});
  EXPECT_FALSE(report.settled);
  EXPECT_EQ(report.busy_at_start, 1);
  EXPECT_EQ(report.waited_ms, 0.0) << "it looked once and did not wait";
}

}  // namespace
}  // namespace tunekit::measure
