// AutotuneConfig defaults and validation, result defaults, and the ranking contract.
#include "tunekit/graph/autotune_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace tunekit::graph {
namespace {

AutotuneResult ok(std::int64_t id, double min_ms, std::int64_t workspace = 0) {
  AutotuneResult r;
  r.engine_id = id;
  r.engine_name = "e" + std::to_string(id);
  r.succeeded = true;
  r.min_time_ms = min_ms;
  r.workspace_size = workspace;
  r.compiled_plan_index = static_cast<int>(id);
  return r;
}

AutotuneResult failed(std::int64_t id) {
  AutotuneResult r;
  r.engine_id = id;
  r.error_message = "failed compile: no";
  return r;
}

std::vector<std::int64_t> ids(const std::vector<AutotuneResult>& results) {
  std::vector<std::int64_t> out;
  for (const auto& r : results) out.push_back(r.engine_id);
  return out;
}

std::vector<int> ranks(const std::vector<AutotuneResult>& results) {
  std::vector<int> out;
  for (const auto& r : results) out.push_back(r.rank);
  return out;
}

TEST(AutotuneConfig, DefaultsMatchTheSpecification) {
  const AutotuneConfig config;
  EXPECT_EQ(config.mode, TuneMode::STANDARD);
  EXPECT_EQ(config.strategy, AutotuneStrategy::RUN_UNTIL_STABLE);
  EXPECT_EQ(config.warmup_iterations, 1);
  EXPECT_EQ(config.timed_iterations, 10);
  EXPECT_EQ(config.max_iterations, 100);
  EXPECT_EQ(config.window_size, 3);
  EXPECT_DOUBLE_EQ(config.stability_threshold, 0.05);
  EXPECT_TRUE(config.engine_id_filter.empty());
  EXPECT_FALSE(config.ranking_fn);
  EXPECT_EQ(config.priming_failure_policy, PrimingFailurePolicy::ABORT_ON_PRIMING_FAILURE);
  EXPECT_TRUE(validate(config).is_good());
  const AutotuneStorageConfig storage;
  EXPECT_TRUE(storage.file_path.empty());
  EXPECT_FALSE(storage.delete_all_existing_content);
}

TEST(AutotuneConfig, RunUntilStableParametersAreValidated) {
  AutotuneConfig config;
  config.window_size = 1;
  EXPECT_EQ(validate(config).code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(validate(config).message().find("window_size"), std::string::npos);
  config = {};
  config.max_iterations = 2;
  EXPECT_NE(validate(config).message().find("max_iterations"), std::string::npos);
  for (double threshold : {0.0, 1.0, -0.1, 1.5}) {
    config = {};
    config.stability_threshold = threshold;
    EXPECT_NE(validate(config).message().find("stability_threshold"), std::string::npos) << threshold;
  }
  config = {};
  config.warmup_iterations = -1;
  EXPECT_NE(validate(config).message().find("warmup_iterations"), std::string::npos);
  config = {};
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 0;
  EXPECT_NE(validate(config).message().find("timed_iterations"), std::string::npos);
  config.window_size = 0;  // not checked under FIXED_AVERAGE
  config.timed_iterations = 5;
  EXPECT_TRUE(validate(config).is_good());
}

TEST(AutotuneResult, DefaultsDescribeAFailedUnrankedCandidate) {
  const AutotuneResult r;
  EXPECT_EQ(r.engine_id, -1);
  EXPECT_EQ(r.rank, -1);
  EXPECT_FALSE(r.succeeded);
  EXPECT_EQ(r.compiled_plan_index, -1);
  EXPECT_EQ(r.workspace_size, 0);  // section 6.1; "never compiled" is the compiled flag
  EXPECT_FALSE(r.compiled);
  EXPECT_EQ(r.batch_size, 0);
  EXPECT_EQ(r.calibration_executions, 0);
  EXPECT_FALSE(r.ran_exhaustive);
  EXPECT_EQ(r.mode_used, TuneMode::STANDARD);
}

TEST(RankAutotuneResults, DefaultRankingIsByMinTimeWithFailedLast) {
  std::vector<AutotuneResult> results{failed(9), ok(1, 3.0), ok(2, 1.0), failed(8), ok(3, 2.0)};
  rank_autotune_results(results, nullptr);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 3, 1, 9, 8}));
  EXPECT_EQ(ranks(results), (std::vector<int>{0, 1, 2, -1, -1}));
}

TEST(RankAutotuneResults, TiesKeepBenchmarkOrder) {
  std::vector<AutotuneResult> results{ok(5, 1.0), ok(4, 1.0), ok(3, 0.5)};
  rank_autotune_results(results, nullptr);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{3, 5, 4}));
}

TEST(RankAutotuneResults, CustomFunctionSeesOnlySucceededEntriesAndRanksAreReassigned) {
  std::size_t seen = 0;
  AutotuneRankingFn by_workspace = [&](std::vector<AutotuneResult>& rs) {
    seen = rs.size();
    for (const auto& r : rs) EXPECT_TRUE(r.succeeded);
    std::sort(rs.begin(), rs.end(), [](const auto& x, const auto& y) { return x.workspace_size < y.workspace_size; });
  };
  std::vector<AutotuneResult> results{ok(1, 1.0, 300), failed(7), ok(2, 2.0, 100), ok(3, 3.0, 200)};
  rank_autotune_results(results, by_workspace);
  EXPECT_EQ(seen, 3u);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 3, 1, 7}));
  EXPECT_EQ(ranks(results), (std::vector<int>{0, 1, 2, -1}));
}

TEST(RankAutotuneResults, ThrowingFunctionFallsBackToMinTime) {
  std::vector<AutotuneResult> results{ok(1, 3.0), ok(2, 1.0)};
  std::string reason;
  rank_autotune_results(results, [](std::vector<AutotuneResult>&) { throw std::runtime_error("boom"); }, &reason);
  EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(reason, "the ranking function threw: boom");
}

TEST(RankAutotuneResults, FunctionThatAddsRemovesOrChangesEntriesIsIgnored) {
  const std::vector<AutotuneRankingFn> bad{
      [](std::vector<AutotuneResult>& rs) { rs.pop_back(); },
      [](std::vector<AutotuneResult>& rs) { rs.push_back(rs.front()); },
      [](std::vector<AutotuneResult>& rs) { rs.front().min_time_ms = 0.0; },
  };
  for (const auto& fn : bad) {
    std::vector<AutotuneResult> results{ok(1, 3.0), ok(2, 1.0)};
    std::string reason;
    rank_autotune_results(results, fn, &reason);
    EXPECT_EQ(ids(results), (std::vector<std::int64_t>{2, 1}));
    EXPECT_EQ(reason, "the ranking function added, removed or changed entries");
  }
}

TEST(TuneMode, NamesRoundTrip) {
  EXPECT_EQ(to_string(TuneMode::STANDARD), "standard");
  EXPECT_EQ(parse_tune_mode("exhaustive"), TuneMode::EXHAUSTIVE);
  EXPECT_FALSE(parse_tune_mode("fast").has_value());
}

}  // namespace
}  // namespace tunekit::graph
