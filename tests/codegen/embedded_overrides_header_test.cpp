// The header `tunekit_gen gen-overrides` generates from
// tests/data/overrides/sample_overrides.json at build time, compiled: it
// holds the file's entries, its function registers them with the selection
// policy, a graph then selects the embedded engine with its knobs, and a file
// of TUNEKIT_HEUR_CONFIG_PATH with another winner for the same key wins.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "sample_overrides.hpp"
#include "support/scratch_dir.hpp"
#include "tunekit/graph/override_file.hpp"
#include "unit/graph/graph_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using tunekit::graph::OverrideFile;
using tunekit::graph::OverrideMatch;
using tunekit::graph::OverridePolicy;
using tunekit::graph::OverrideQuery;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const OverrideQuery kQuery{"matmul", {}, {{"A", {4, 8}, {8, 1}}, {"B", {8, 2}, {2, 1}}, {"C", {4, 2}, {2, 1}}}};

// The build generated the header with tunekit_gen; tests/cli checks that
// `tunekit gen-overrides` writes the same golden file.
TEST(EmbeddedOverridesHeader, BuildHeaderEqualsTheGoldenFile) {
  const std::string golden = read(TUNEKIT_SAMPLE_OVERRIDES_GOLDEN_PATH);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(read(TUNEKIT_SAMPLE_OVERRIDES_HEADER_PATH), golden);
}

TEST(EmbeddedOverridesHeader, HoldsTheEntriesOfTheFile) {
  static_assert(tunekit_overrides::register_embedded_overrides_entry_count == 2);
  tunekit::Result<OverrideFile> embedded =
      tunekit::graph::parse_override_file(tunekit_overrides::register_embedded_overrides_json, "embedded");
  tunekit::Result<OverrideFile> file = tunekit::graph::read_override_file(TUNEKIT_SAMPLE_OVERRIDES_PATH);
  ASSERT_TRUE(embedded.ok()) << embedded.error().message();
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ(embedded->version, 2);
  EXPECT_TRUE(embedded->rejected.empty());
  // The file's entries less their measurements: of the metadata only the
  // decisions (knobs, complete) are embedded.
  std::vector<tunekit::graph::OverrideEntry> decisions = file->entries;
  for (tunekit::graph::OverrideEntry& entry : decisions) {
    if (!entry.metadata) continue;
    tunekit::graph::OverrideMetadata kept;
    kept.complete = entry.metadata->complete;
    entry.metadata = kept;
  }
  EXPECT_EQ(embedded->entries, decisions);
  ASSERT_TRUE(file->entries[0].metadata && file->entries[0].metadata->min_time_ms);
  EXPECT_FALSE(embedded->entries[0].metadata->min_time_ms) << "a measured time is not a decision";
}

TEST(EmbeddedOverridesHeader, RegistersTheEntriesUnderTheFileName) {
  OverridePolicy policy;
  ASSERT_TRUE(tunekit_overrides::register_embedded_overrides(policy).is_good());
  std::shared_ptr<const tunekit::graph::OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  EXPECT_EQ(index->entry_count(), 2u);
  const std::optional<OverrideMatch> match = index->lookup(kQuery, {});
  ASSERT_TRUE(match);
  EXPECT_EQ(match->file, "embedded:sample_overrides.json");
  EXPECT_TRUE(match->exact);
  EXPECT_EQ(match->engine_name, "tiled");
  EXPECT_EQ(match->entry->knobs, (std::vector<tunekit::graph::KnobSetting>{{"tile", std::int64_t{32}}}));
  ASSERT_TRUE(match->entry->validators);
  EXPECT_EQ(match->entry->validators->device_name, "bench \"box\"\tone");
  const OverrideQuery wide{"matmul", {}, {{"A", {3, 16}, {16, 1}}}};
  EXPECT_EQ(index->lookup(wide, {})->engine_name, "naive");
}

class EmbeddedOverridesSelection : public tunekit::graph::testing::GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    namespace t = tunekit::graph::testing;
    t::FakeBehaviour tiled = t::behaviour(2, "tiled");
    tiled.descriptor.knobs = {t::int_knob("tile", 8, 4, 64, 4)};
    add(t::behaviour(1, "naive"));
    add(tiled);
    add(t::behaviour(3, "third"));
    build();
  }
  void TearDown() override { unsetenv(tunekit::graph::kOverridePathVariable); }
  std::string first_plan() {
    EXPECT_TRUE(graph.create_execution_plans().is_good());
    std::string name;
    EXPECT_TRUE(graph.get_plan_name_at_index(0, name).is_good());
    return name;
  }
};

TEST_F(EmbeddedOverridesSelection, TheGraphSelectsTheEmbeddedEngineAndAHeuristicPathFileWins) {
  unsetenv(tunekit::graph::kOverridePathVariable);
  EXPECT_EQ(first_plan(), "naive");  // the heuristic order
  ASSERT_TRUE(tunekit_overrides::register_embedded_overrides().is_good());
  EXPECT_EQ(first_plan(), "tiled[tile=32]");

  tunekit::testing::ScratchDir dir("tunekit-embedded-selection");
  const fs::path user = dir.path() / "user.json";
  std::ofstream(user) << R"({"version": 2, "engine_overrides": [{"op": "matmul", "engine_name": "third",
      "tensors": [{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]}, {"tensor_id": "B", "dim": [8, 2]}]}]})";
  setenv(tunekit::graph::kOverridePathVariable, user.c_str(), 1);
  EXPECT_EQ(first_plan(), "third");
  unsetenv(tunekit::graph::kOverridePathVariable);
  EXPECT_EQ(first_plan(), "tiled[tile=32]");  // the embedded entry serves again
}

}  // namespace
