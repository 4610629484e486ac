#include "tunekit/core/log.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tunekit::core::log {
namespace {

struct Captured {
  std::mutex mutex;
  std::vector<std::pair<Level, std::string>> lines;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = level();
    set_sink([this](Level l, std::string_view m) {
      std::lock_guard lock(captured_.mutex);
      captured_.lines.emplace_back(l, std::string(m));
    });
  }
  void TearDown() override {
    set_sink(nullptr);
    set_level(saved_);
    unsetenv("TUNEKIT_LOG_LEVEL");
  }
  Captured captured_;
  Level saved_{};
};

TEST_F(LogTest, SinkReceivesMessagesAtOrAboveTheLevel) {
  set_level(Level::INFO);
  debug("hidden {}", 1);
  info("autotune: {} candidates", 8);
  error("broken");
  ASSERT_EQ(captured_.lines.size(), 2u);
  EXPECT_EQ(captured_.lines[0].first, Level::INFO);
  EXPECT_EQ(captured_.lines[0].second, "autotune: 8 candidates");
  EXPECT_EQ(captured_.lines[1].first, Level::ERROR);
}

TEST_F(LogTest, TheSinkGetsValidUtf8WhatEverTheMessageQuotes) {
  set_level(Level::INFO);
  const std::string name = "caf\xC3\xA9 \xFF.json";
  warn("overrides: {} is skipped", name);
  info("overrides: {} read", "caf\xC3\xA9.json");
  ASSERT_EQ(captured_.lines.size(), 2u);
  EXPECT_EQ(captured_.lines[0].second, "overrides: caf\xC3\xA9 \xEF\xBF\xBD.json is skipped");
  EXPECT_EQ(captured_.lines[1].second, "overrides: caf\xC3\xA9.json read");
}

TEST_F(LogTest, OffSilencesEverything) {
  set_level(Level::OFF);
  error("nothing");
  EXPECT_TRUE(captured_.lines.empty());
  EXPECT_FALSE(enabled(Level::ERROR));
}

TEST_F(LogTest, EnvironmentSetsTheLevelAndBadValuesAreReported) {
  set_level(Level::WARN);
  setenv("TUNEKIT_LOG_LEVEL", "debug", 1);
  apply_environment();
  EXPECT_EQ(level(), Level::DEBUG);
  setenv("TUNEKIT_LOG_LEVEL", "loud", 1);
  apply_environment();
  EXPECT_EQ(level(), Level::DEBUG);
  ASSERT_FALSE(captured_.lines.empty());
  EXPECT_NE(captured_.lines.back().second.find("loud"), std::string::npos);
}

TEST_F(LogTest, ConcurrentMessagesAreAllDelivered) {
  set_level(Level::INFO);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i) info("thread {} message {}", t, i);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(captured_.lines.size(), 400u);
}

TEST(LogLevel, NamesRoundTrip) {
  for (Level l : {Level::TRACE, Level::DEBUG, Level::INFO, Level::WARN, Level::ERROR, Level::OFF}) {
    EXPECT_EQ(parse_level(to_string(l)), l);
  }
  EXPECT_EQ(parse_level("warning"), Level::WARN);
  EXPECT_FALSE(parse_level("verbose").has_value());
}

}  // namespace
}  // namespace tunekit::core::log
