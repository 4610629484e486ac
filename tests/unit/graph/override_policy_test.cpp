// The selection policy: path lists, reloads only when a file's size or
// modification time changed, and create_execution_plans() putting the
// matched engine first with its stored knobs, or falling back with a reason.
#include "tunekit/graph/override_policy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "graph_test_support.hpp"

namespace tunekit::graph {
namespace {

using testing::LogCapture;

std::filesystem::path temporary_folder() {
  char pattern[] = "/tmp/tunekit-policy-XXXXXX";
  return mkdtemp(pattern);
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string matmul_entry(const std::string& engine, const std::string& knobs = "", const std::string& extra = "") {
  return fmt::format(R"({{"op": "matmul", "engine_name": "{}", "tensors": [{{"tensor_id": "A", "dim": [4, 8]}}]{}{}}})",
                     engine, knobs.empty() ? "" : R"(, "autotune_metadata": {"knobs": )" + knobs + "}", extra);
}

std::string file_of(const std::string& entries) { return R"({"version": 2, "engine_overrides": [)" + entries + "]}"; }

TEST(OverridePathList, SplitsOnColonsAndDropsEmptyParts) {
  EXPECT_EQ(split_override_path_list("a.json::/x/b.json:"),
            (std::vector<std::filesystem::path>{"a.json", "/x/b.json"}));
  EXPECT_TRUE(split_override_path_list("").empty());
}

TEST(OverridePolicyFiles, ReloadsAFileOnlyWhenItsSizeOrModificationTimeChanged) {
  const std::filesystem::path folder = temporary_folder();
  const std::filesystem::path path = folder / "o.json";
  write(path, file_of(matmul_entry("a")));
  OverridePolicy policy;
  policy.set_paths({path, folder / "missing.json"});
  auto index = policy.refresh();
  ASSERT_TRUE(index);
  EXPECT_EQ(policy.parse_count(), 1u);
  EXPECT_EQ(policy.refresh(), index);  // unchanged: the same index, nothing parsed
  EXPECT_EQ(policy.parse_count(), 1u);

  write(path, file_of(matmul_entry("a") + "," + matmul_entry("b")));  // size changes
  auto reloaded = policy.refresh();
  EXPECT_EQ(policy.parse_count(), 2u);
  EXPECT_EQ(reloaded->entry_count(), 2u);

  write(path, file_of(matmul_entry("c") + "," + matmul_entry("d")));  // same size
  struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);  // another modification time
  auto touched = policy.refresh();
  EXPECT_EQ(policy.parse_count(), 3u);
  EXPECT_EQ(touched->lookup(OverrideQuery{"matmul", {}, {{"A", {4, 8}, {8, 1}}}}, {})->engine_name, "c");  // the first of equals

  write(folder / "missing.json", "{ broken");
  LogCapture logs;
  policy.refresh();
  EXPECT_EQ(logs.count_containing("overrides: " + (folder / "missing.json").string() + " is skipped", log::Level::WARN), 1);
  EXPECT_EQ(policy.parse_count(), 4u);
  std::filesystem::remove_all(folder);
}

TEST(OverridePolicyFiles, NamesEverySkippedFileWithItsReason) {
  const std::filesystem::path folder = temporary_folder();
  const std::filesystem::path good = folder / "good.json", broken = folder / "broken.json", absent = folder / "absent.json";
  write(good, file_of(matmul_entry("a")));
  write(broken, "{ broken");
  OverridePolicy policy;
  policy.set_paths({broken, absent, good});
  auto index = policy.refresh();
  ASSERT_TRUE(index);
  ASSERT_EQ(index->files().size(), 1u);
  EXPECT_EQ(index->files()[0].source, good.string());
  const std::vector<SkippedOverrideFile> skipped = policy.skipped_files();
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].path, broken);
  EXPECT_EQ(skipped[0].reason.rfind(broken.string() + ": line 1, column 3: syntax error", 0), 0u) << skipped[0].reason;
  EXPECT_EQ(skipped[1], (SkippedOverrideFile{absent, "does not exist"}));

  write(broken, file_of(matmul_entry("b")));  // repaired: no longer skipped
  policy.refresh();
  EXPECT_EQ(policy.skipped_files(), (std::vector<SkippedOverrideFile>{{absent, "does not exist"}}));
  std::filesystem::remove_all(folder);
}

class OverrideSelection : public testing::GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    folder = temporary_folder();
    path = folder / "overrides.json";
    testing::FakeBehaviour tiled = testing::behaviour(2, "tiled");
    tiled.descriptor.knobs = {testing::int_knob("tile", 8, 4, 64, 4)};
    add(testing::behaviour(1, "naive"));
    add(tiled);
    add(testing::behaviour(3, "third"));
    build();
  }
  void TearDown() override {
    unsetenv(kOverridePathVariable);
    unsetenv(kNearestShapeLimitVariable);
    std::filesystem::remove_all(folder);
  }
  void use(const std::string& entries) {
    write(path, file_of(entries));
    setenv(kOverridePathVariable, (folder / "absent.json").string().append(":").append(path.string()).c_str(), 1);
  }
  std::vector<std::string> plan_names() {
    std::vector<std::string> names;
    for (std::int64_t i = 0; i < graph.get_execution_plan_count(); ++i) {
      std::string name;
      EXPECT_TRUE(graph.get_plan_name_at_index(i, name).is_good());
      names.push_back(name);
    }
    return names;
  }

  std::filesystem::path folder;
  std::filesystem::path path;
};

TEST_F(OverrideSelection, WithoutTheVariableTheHeuristicOrderStays) {
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled", "third"}));
}

TEST_F(OverrideSelection, TheMatchedEngineMovesFirstWithItsStoredKnobs) {
  use(matmul_entry("tiled", R"([{"knob_id": "tile", "type": "int", "value": 16}])"));
  LogCapture logs;
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"tiled[tile=16]", "naive", "third"}));
  EXPECT_EQ(logs.count_containing("overrides: graph '': entry 0 of " + path.string() +
                                  " (exact) puts engine 'tiled' (id 2) first with tile=16"),
            1);
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_good());
  ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  EXPECT_EQ(sim->events.back(), "exec:tiled");
}

std::string matmul_entry_of_a(const std::string& engine, const std::string& a_dims) {
  return fmt::format(R"({{"op": "matmul", "engine_name": "{}", "tensors": [{{"tensor_id": "A", "dim": {}}}]}})", engine,
                     a_dims);
}

TEST_F(OverrideSelection, TheWinnerOfTheNearestTunedShapeMovesFirstWithinTheLimit) {
  // The graph's A is 4x8: an entry for 8x8 is at distance 1, one for 64x8 at 4.
  use(matmul_entry_of_a("third", "[64, 8]") + "," + matmul_entry_of_a("tiled", "[8, 8]"));
  {
    LogCapture logs;
    ASSERT_TRUE(graph.create_execution_plans().is_good());
    EXPECT_EQ(plan_names(), (std::vector<std::string>{"tiled", "naive", "third"}));
    EXPECT_EQ(logs.count_containing("overrides: graph '': entry 1 of " + path.string() +
                                    ", the nearest tuned shape (distance 1) puts engine 'tiled' (id 2) first"),
              1);
  }
  setenv(kNearestShapeLimitVariable, "0", 1);
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled", "third"}));
  setenv(kNearestShapeLimitVariable, "4", 1);
  use(matmul_entry_of_a("third", "[64, 8]"));
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"third", "naive", "tiled"}));
  {
    setenv(kNearestShapeLimitVariable, "near", 1);
    LogCapture logs;
    ASSERT_TRUE(graph.create_execution_plans().is_good());
    EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled", "third"}));  // 4 is beyond the default 2
    EXPECT_EQ(logs.count_containing("overrides: TUNEKIT_HEUR_NEAREST_LIMIT='near' is not a number of at least 0; using 2",
                                    log::Level::WARN),
              1);
  }
  unsetenv(kNearestShapeLimitVariable);
}

TEST_F(OverrideSelection, AnEngineThatNoLongerAppliesFallsBackWithTheReason) {
  engines[2]->behaviour().applicable = false;
  use(matmul_entry("third"));
  LogCapture logs;
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled"}));
  EXPECT_EQ(logs.count_containing("selects engine 'third' (id 3), but it no longer applies to this graph (only for "
                                  "other graphs); using the heuristic order",
                                  log::Level::WARN),
            1);
}

TEST_F(OverrideSelection, KnobsThatNoLongerValidateFallBackWithTheReason) {
  use(matmul_entry("tiled", R"([{"knob_id": "tile", "type": "int", "value": 7}])"));
  LogCapture logs;
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled", "third"}));
  EXPECT_EQ(logs.count_containing("but its stored knobs no longer validate: knob 'tile'", log::Level::WARN), 1);

  use(matmul_entry("tiled", R"([{"knob_id": "gone", "value": 1}])"));
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names(), (std::vector<std::string>{"naive", "tiled", "third"}));
  EXPECT_EQ(logs.count_containing("its stored knob 'gone' is no longer a knob of the engine", log::Level::WARN), 1);
}

TEST_F(OverrideSelection, AnEntryForAnotherDeviceIsIgnored) {
  use(matmul_entry("third", "", R"(, "validators": {"device_signature": "gpu:1"})"));
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names().front(), "naive");
  use(matmul_entry("third", "", R"(, "validators": {"device_signature": "scripted:0"})"));
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  EXPECT_EQ(plan_names().front(), "third");
}

TEST_F(OverrideSelection, AutotuneWritesAndALaterGraphPicksTheWinnerWithItsKnobs) {
  engines[0]->behaviour().cost_ms = [](const KnobValues&) { return 2.0; };
  engines[1]->behaviour().cost_ms = [](const KnobValues& k) { return k.get_int("tile") == 32 ? 0.25 : 1.0; };
  engines[2]->behaviour().cost_ms = [](const KnobValues&) { return 3.0; };
  ASSERT_TRUE(graph.add_all_engines().is_good());
  ASSERT_TRUE(graph.add_engine(2, {{"tile", std::int64_t{32}}}).is_good());
  ASSERT_TRUE(graph.autotune(handle.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()), {},
                             AutotuneStorageConfig{path, false})
                  .is_good());
  setenv(kOverridePathVariable, path.c_str(), 1);

  Graph again;
  Tensor a2 = again.tensor(TensorAttributes().set_name("A").set_uid(1).set_dim({4, 8}));
  Tensor b2 = again.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({8, 2}));
  again.matmul(a2, b2)->set_output(true).set_uid(3);
  ASSERT_TRUE(again.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(again.create_execution_plans().is_good());
  std::string first;
  ASSERT_TRUE(again.get_plan_name_at_index(0, first).is_good());
  EXPECT_EQ(first, "tiled[tile=32]");
  ASSERT_TRUE(again.build_plans().is_good());
  ASSERT_TRUE(again.execute(handle.get(), pack, workspace.data()).is_good());
}

}  // namespace
}  // namespace tunekit::graph
