// Interference between candidates: a "pool" engine leaves a real thread
// spinning for a while after each execution (as OpenBLAS's and OpenMP's
// pools do), and a "victim" engine is slower whenever another thread of the
// process is running when it starts (as it would be when the spinner holds
// a core its threads need). On scripted device time, so the slowdown is
// exactly what the thread states say: autotune must wait for the machine
// to settle, so the order in which the two are measured does not change the
// ranking, on every strategy. Without the wait (the control) it does.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>

#include "graph_test_support.hpp"
#include "tunekit/measure/settle.hpp"

namespace tunekit::graph::testing {
namespace {

using Clock = std::chrono::steady_clock;

// One thread that, after each kick(), spins for `spin_for` of real time and
// then sleeps until the next kick.
class KickedSpinner {
 public:
  explicit KickedSpinner(std::chrono::milliseconds spin_for) : spin_for_(spin_for), thread_([this] { loop(); }) {}
  ~KickedSpinner() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void kick() {
    {
      std::lock_guard lock(mutex_);
      until_ = Clock::now() + spin_for_;
      ++kicks_;
    }
    wake_.notify_all();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    long seen = 0;
    while (true) {
      wake_.wait(lock, [&] { return stop_ || kicks_ != seen; });
      if (stop_) return;
      seen = kicks_;
      lock.unlock();
      volatile unsigned sink = 0;
      while (true) {
        {
          std::lock_guard inner(mutex_);
          if (stop_ || Clock::now() >= until_) break;
        }
        for (int i = 0; i < 1000; ++i) sink = sink + 1;
      }
      lock.lock();
    }
  }

  std::chrono::milliseconds spin_for_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Clock::time_point until_{};
  long kicks_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

constexpr double kPoolMs = 1.0;
constexpr double kVictimMs = 0.8;         // the faster one on a quiet machine
constexpr double kVictimDisturbedMs = 1.5;  // with the pool's thread still spinning

class AutotuneSettle : public GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    if (measure::busy_other_threads() < 0) GTEST_SKIP() << "thread states are not readable on this system";
  }

  FakeBehaviour pool_engine(std::int64_t id) {
    FakeBehaviour b = behaviour(id, "pool", kPoolMs);
    b.cost_ms = [spinner = spinner_](const KnobValues&) {
      spinner->kick();
      return kPoolMs;
    };
    return b;
  }
  static FakeBehaviour victim_engine(std::int64_t id) {
    FakeBehaviour b = behaviour(id, "victim", kVictimMs);
    b.cost_ms = [](const KnobValues&) {
      return measure::busy_other_threads() > 0 ? kVictimDisturbedMs : kVictimMs;
    };
    return b;
  }

  // Tunes the two engines measured in the given order and returns the ranked results.
  std::vector<AutotuneResult> tune(bool pool_first, AutotuneConfig config) {
    if (pool_first) {
      add(pool_engine(1));
      add(victim_engine(2));
    } else {
      add(victim_engine(1));
      add(pool_engine(2));
    }
    build();
    EXPECT_TRUE(graph.add_all_engines().is_good());
    config.check_machine_load = false;
    std::vector<AutotuneResult> results;
    const Error error = graph.autotune(handle.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()),
                                       config, {}, &results);
    EXPECT_TRUE(error.is_good()) << error.message();
    return results;
  }

  std::shared_ptr<KickedSpinner> spinner_ = std::make_shared<KickedSpinner>(std::chrono::milliseconds(30));
};

struct Case {
  AutotuneStrategy strategy;
  bool pool_first;
};

class AutotuneSettleOrder : public AutotuneSettle, public ::testing::WithParamInterface<Case> {};

TEST_P(AutotuneSettleOrder, TheFasterOnAQuietMachineWinsWhicheverRunsFirst) {
  AutotuneConfig config;
  config.strategy = GetParam().strategy;
  const std::vector<AutotuneResult> results = tune(GetParam().pool_first, config);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].engine_name, "victim");
  EXPECT_NEAR(results[0].median_time_ms, kVictimMs, 1e-9) << "a sample was taken while the pool still spun";
  EXPECT_NEAR(results[0].min_time_ms, kVictimMs, 1e-9);
  EXPECT_EQ(results[0].unreliable_reason, "");
  EXPECT_EQ(results[1].engine_name, "pool");
  EXPECT_EQ(results[1].verdict_against_fastest, "slower");
  // Waiting for the victim: the pool ran before its warm-up (or its samples).
  if (GetParam().pool_first || GetParam().strategy == AutotuneStrategy::RACE) {
    EXPECT_GT(results[0].settle_wait_ms, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, AutotuneSettleOrder,
                         ::testing::Values(Case{AutotuneStrategy::RUN_UNTIL_STABLE, true},
                                           Case{AutotuneStrategy::RUN_UNTIL_STABLE, false},
                                           Case{AutotuneStrategy::FIXED_AVERAGE, true},
                                           Case{AutotuneStrategy::FIXED_AVERAGE, false},
                                           Case{AutotuneStrategy::RACE, true},
                                           Case{AutotuneStrategy::RACE, false}),
                         [](const auto& info) {
                           return std::string(measure::to_string(info.param.strategy)) +
                                  (info.param.pool_first ? "_PoolFirst" : "_VictimFirst");
                         });

// The control: only looking, never waiting, the pool measured first wins,
// and the victim's measurement says why it cannot be trusted.
class AutotuneSettleControl : public AutotuneSettle, public ::testing::WithParamInterface<AutotuneStrategy> {};

TEST_P(AutotuneSettleControl, WithoutWaitingThePoolMeasuredFirstWinsAndTheVictimIsUnreliable) {
  AutotuneConfig config;
  config.strategy = GetParam();
  config.settle_timeout_ms = 0.0;
  const std::vector<AutotuneResult> results = tune(true, config);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].engine_name, "pool");
  EXPECT_EQ(results[1].engine_name, "victim");
  EXPECT_NEAR(results[1].min_time_ms, kVictimDisturbedMs, 1e-9);
  EXPECT_NE(results[1].unreliable_reason.find("other threads of the process kept running while it was timed: 1 "
                                              "other thread was still running"),
            std::string::npos)
      << results[1].unreliable_reason;
}

INSTANTIATE_TEST_SUITE_P(Strategies, AutotuneSettleControl,
                         ::testing::Values(AutotuneStrategy::RUN_UNTIL_STABLE, AutotuneStrategy::RACE),
                         [](const auto& info) { return std::string(measure::to_string(info.param)); });

TEST_F(AutotuneSettle, ANegativeOrInfiniteTimeoutIsRejected) {
  for (double bad : {-1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    AutotuneConfig config;
    config.settle_timeout_ms = bad;
    const Error error = validate(config);
    EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
    EXPECT_NE(error.message().find("settle_timeout_ms must be at least 0"), std::string::npos) << error.message();
  }
}

}  // namespace
}  // namespace tunekit::graph::testing
