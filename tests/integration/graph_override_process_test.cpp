// Override files across processes: a winner written by autotune in this
// process is picked, with its knobs, by create_execution_plans() in a
// freshly executed second process whose result is checked against a double
// reference; and eight processes writing different graphs at once lose no
// entry.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "graph_test_provider.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/graph/override_writer.hpp"

namespace tunekit::graph::test_provider {
namespace {

constexpr const char* kSecondProcessFile = "TUNEKIT_TEST_ROUNDTRIP_FILE";

std::filesystem::path temporary_folder() {
  char pattern[] = "/tmp/tunekit-override-process-XXXXXX";
  return mkdtemp(pattern);
}

class Processes : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(reg->add_provider(provider).is_good());
    registry = reg;
    handle = std::move(Handle::create(device, registry)).value();
  }

  TestProvider provider;
  std::shared_ptr<const EngineRegistry> registry;
  platform::CpuDevice device;
  std::unique_ptr<Handle> handle;
};

// Runs this test binary again with only `test` selected and `file` in the environment.
int run_second_process(const std::string& test, const std::filesystem::path& file) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv(kSecondProcessFile, file.c_str(), 1);
    std::string filter = "--gtest_filter=" + test;
    char self[] = "/proc/self/exe";
    char* argv[] = {self, filter.data(), nullptr};
    execv(self, argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(Processes, AWinnerWrittenHereIsPickedWithItsKnobsByASecondProcess) {
  const std::filesystem::path folder = temporary_folder();
  const std::filesystem::path file = folder / "overrides.json";
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  // The delayed engine's time is its knob: 300 us is the known winner, not the default (2000 us).
  ASSERT_TRUE(graph.add_engine_sweep({EngineSweepSpec{kDelayed, {{"delay_us", {std::int64_t{1500}, std::int64_t{300},
                                                                              std::int64_t{3000}}}}, {}}})
                  .is_good());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 3;
  std::vector<AutotuneResult> results;
  ASSERT_TRUE(graph.autotune(handle.get(), problem.pack(), nullptr, 0, config, AutotuneStorageConfig{file, true}, &results)
                  .is_good());
  ASSERT_EQ(results[0].knob_settings, (std::vector<KnobSetting>{{"delay_us", std::int64_t{300}}}));

  EXPECT_EQ(run_second_process("Processes.SecondProcessPicksTheStoredWinner", file), 0);
  std::filesystem::remove_all(folder);
}

TEST_F(Processes, SecondProcessPicksTheStoredWinner) {
  const char* file = std::getenv(kSecondProcessFile);
  if (!file) GTEST_SKIP() << "runs as the second process of AWinnerWrittenHereIsPickedWithItsKnobsByASecondProcess";
  setenv(kOverridePathVariable, file, 1);
  Graph graph;
  MatmulProblem problem(graph);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  std::string first;
  ASSERT_TRUE(graph.get_plan_name_at_index(0, first).is_good());
  EXPECT_EQ(first, "delayed[delay_us=300]");
  ASSERT_TRUE(graph.check_support().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_good());
  problem.poison();
  const int before = provider.counters().executions_of(kDelayed);
  ASSERT_TRUE(graph.execute(handle.get(), problem.pack(), nullptr).is_good());
  EXPECT_EQ(provider.counters().executions_of(kDelayed), before + 1);
  EXPECT_LT(problem.max_relative_error(), 1e-5);
}

TEST_F(Processes, EightConcurrentWritersOfDifferentGraphsLoseNothing) {
  const std::filesystem::path folder = temporary_folder();
  const std::filesystem::path file = folder / "shared.json";
  constexpr int kWriters = 8;
  constexpr int kRounds = 5;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      int failures = 0;
      Graph graph;
      MatmulProblem problem(graph, 8 + w, 16, 4);  // a different key per writer
      if (graph.build_operation_graph(handle.get()).is_bad()) _exit(2);
      AutotuneResult winner;
      winner.engine_id = kNaive;
      winner.engine_name = "naive";
      winner.rank = 0;
      winner.succeeded = true;
      for (int round = 0; round < kRounds; ++round) {
        winner.iterations_run = round;
        winner.knob_settings = {{"unroll", std::int64_t{round % 2 == 0 ? 2 : 4}}};
        Result<OverrideWriteReport> written = write_autotune_override(
            graph.operation_graph(), winner, OverrideWriteContext{device, *registry}, AutotuneStorageConfig{file, false});
        if (!written.ok()) ++failures;
      }
      _exit(failures == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Result<OverrideFile> stored = read_override_file(file);
  ASSERT_TRUE(stored.ok()) << stored.error().message();
  EXPECT_TRUE(stored->rejected.empty());
  ASSERT_EQ(stored->entries.size(), static_cast<std::size_t>(kWriters));
  std::set<std::int64_t> rows;
  for (const OverrideEntry& e : stored->entries) {
    rows.insert(e.tensors.at(0).dims.at(0));
    EXPECT_EQ(e.knobs, (std::vector<KnobSetting>{{"unroll", std::int64_t{2}}}));  // the last round of each writer
  }
  EXPECT_EQ(rows.size(), static_cast<std::size_t>(kWriters));
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(entry.path().filename().string().find(".corrupt-"), std::string::npos) << entry.path();
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tunekit::graph::test_provider
