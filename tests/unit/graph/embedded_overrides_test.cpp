// Embedded override sources of the selection policy: text compiled into a
// program, parsed once at registration, consulted after every file of the
// path list, replaced by name, and safe to register while other threads
// refresh and look up.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "graph_test_support.hpp"
#include "support/scratch_dir.hpp"
#include "tunekit/graph/override_policy.hpp"

namespace tunekit::graph {
namespace {

using testing::LogCapture;
using tunekit::testing::ScratchDir;

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string entry(const std::string& engine, const std::string& dims, const std::string& knobs = "") {
  return fmt::format(R"({{"op": "matmul", "engine_name": "{}", "tensors": [{{"tensor_id": "A", "dim": {}}}]{}}})",
                     engine, dims, knobs.empty() ? "" : R"(, "autotune_metadata": {"knobs": )" + knobs + "}");
}

std::string file_of(const std::string& entries) { return R"({"version": 2, "engine_overrides": [)" + entries + "]}"; }

OverrideQuery matmul(std::vector<std::int64_t> dims) {
  std::vector<std::int64_t> strides{dims.size() > 1 ? dims[1] : 1, 1};
  strides.resize(dims.size());
  return OverrideQuery{"matmul", {}, {{"A", std::move(dims), std::move(strides)}}};
}

// The winning engine's name for dims, or "none".
std::string winner(OverridePolicy& policy, std::vector<std::int64_t> dims) {
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  if (!index) return "none";
  const std::optional<OverrideMatch> match = index->lookup(matmul(std::move(dims)), {});
  return match ? match->engine_name : "none";
}

TEST(EmbeddedOverrides, AnEmbeddedEntryIsFoundWithItsKnobsWhenNoFileMatches) {
  ScratchDir dir("tunekit-embedded");
  write(dir.path() / "user.json", file_of(entry("from_file", "[4, 8]")));
  OverridePolicy policy;
  policy.set_paths({dir.path() / "user.json", dir.path() / "absent.json"});
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("tiled", "[2, 2]", R"([{"knob_id": "tile", "value": 16}])")))
                  .is_good());
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  ASSERT_EQ(index->files().size(), 2u);
  EXPECT_EQ(index->files()[1].source, "embedded:lib.json");
  const std::optional<OverrideMatch> match = index->lookup(matmul({2, 2}), {});
  ASSERT_TRUE(match);
  EXPECT_EQ(match->engine_name, "tiled");
  EXPECT_EQ(match->file, "embedded:lib.json");
  EXPECT_EQ(match->file_index, 1u);
  EXPECT_TRUE(match->exact);
  EXPECT_EQ(match->entry->knobs, (std::vector<KnobSetting>{{"tile", std::int64_t{16}}}));
  EXPECT_EQ(winner(policy, {4, 8}), "from_file");
}

TEST(EmbeddedOverrides, WithoutAnyFileTheEmbeddedSourceAloneIsTheIndex) {
  OverridePolicy policy;
  EXPECT_EQ(policy.refresh(), nullptr);
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("tiled", "[2, 2]"))).is_good());
  EXPECT_EQ(winner(policy, {2, 2}), "tiled");
  EXPECT_EQ(winner(policy, {3, 3}), "none");
}

TEST(EmbeddedOverrides, AFileEntryForTheSameKeyBeatsTheEmbeddedOne) {
  ScratchDir dir("tunekit-embedded");
  write(dir.path() / "user.json", file_of(entry("from_file", "[4, 8]")));
  OverridePolicy policy;
  // Registered before the paths are set: the order of the calls does not matter.
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("compiled_in", "[4, 8]"))).is_good());
  policy.set_paths({dir.path() / "user.json"});
  EXPECT_EQ(winner(policy, {4, 8}), "from_file");
  // A file wildcard against a file wildcard: the file still comes first.
  write(dir.path() / "user.json", file_of(entry("file_any", "[-1, 8]")));
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("compiled_any", "[-1, 8]"))).is_good());
  EXPECT_EQ(winner(policy, {4, 8}), "file_any");
}

TEST(EmbeddedOverrides, AnEmbeddedExactEntryBeatsAFileWildcardEntry) {
  ScratchDir dir("tunekit-embedded");
  write(dir.path() / "user.json", file_of(entry("file_any", "[-1, 8]")));
  OverridePolicy policy;
  policy.set_paths({dir.path() / "user.json"});
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("compiled_exact", "[4, 8]"))).is_good());
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  const OverrideExplanation why = index->explain(matmul({4, 8}), {});
  ASSERT_TRUE(why.match);
  EXPECT_EQ(why.match->engine_name, "compiled_exact");
  EXPECT_TRUE(why.match->exact);
  ASSERT_EQ(why.misses.size(), 1u);
  EXPECT_EQ(why.misses[0].reason, "matches, but entry 0 of embedded:lib.json wins: an exact entry beats a wildcard entry");
  EXPECT_EQ(winner(policy, {16, 8}), "file_any");  // the wildcard still serves the other shapes
}

TEST(EmbeddedOverrides, InvalidJsonIsRefusedNamingTheSourceAndNothingChanges) {
  OverridePolicy policy;
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("kept", "[4, 8]"))).is_good());
  ASSERT_EQ(winner(policy, {4, 8}), "kept");

  const Error broken = policy.register_embedded("lib.json", "{ broken");
  EXPECT_EQ(broken.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(broken.message().rfind("embedded:lib.json: line 1, column 3: syntax error", 0), 0u) << broken.message();
  const Error not_overrides = policy.register_embedded("other.json", "[1, 2]");
  EXPECT_EQ(not_overrides,
            Error(ErrorCode::INVALID_VALUE, "embedded:other.json: expected a JSON object with engine_overrides"));
  const Error unnamed = policy.register_embedded("", file_of(entry("x", "[4, 8]")));
  EXPECT_EQ(unnamed, Error(ErrorCode::INVALID_VALUE, "embedded overrides: the source name must not be empty"));

  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  ASSERT_EQ(index->files().size(), 1u);
  EXPECT_EQ(index->files()[0].source, "embedded:lib.json");
  EXPECT_EQ(winner(policy, {4, 8}), "kept");
}

TEST(EmbeddedOverrides, AMalformedEntryIsSkippedAndTheOthersRegister) {
  OverridePolicy policy;
  LogCapture logs;
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("good", "[4, 8]") + R"(, {"op": "matmul"})")).is_good());
  EXPECT_EQ(logs.count_containing("overrides: embedded:lib.json: entry 1: engine_name: missing (give engine_name or "
                                  "engine_id) (entry skipped)",
                                  log::Level::WARN),
            1);
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  EXPECT_EQ(index->entry_count(), 1u);
  EXPECT_EQ(winner(policy, {4, 8}), "good");
}

TEST(EmbeddedOverrides, RegisteringANameAgainReplacesItInItsPlace) {
  OverridePolicy policy;
  ASSERT_TRUE(policy.register_embedded("first.json", file_of(entry("one", "[4, 8]"))).is_good());
  ASSERT_TRUE(policy.register_embedded("second.json", file_of(entry("two", "[4, 8]") + "," + entry("two", "[2, 2]")))
                  .is_good());
  EXPECT_EQ(winner(policy, {4, 8}), "one");  // the earlier registration first
  ASSERT_TRUE(policy.register_embedded("first.json", file_of(entry("three", "[4, 8]"))).is_good());
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  ASSERT_EQ(index->files().size(), 2u);
  EXPECT_EQ(index->files()[0].source, "embedded:first.json");
  EXPECT_EQ(index->files()[1].source, "embedded:second.json");
  EXPECT_EQ(index->entry_count(), 3u);
  EXPECT_EQ(winner(policy, {4, 8}), "three");
}

TEST(EmbeddedOverrides, RefreshReadsNothingForEmbeddedSourcesAndKeepsTheIndexUntilARegistration) {
  OverridePolicy policy;
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("one", "[4, 8]"))).is_good());
  std::shared_ptr<const OverrideIndex> index = policy.refresh();
  ASSERT_TRUE(index);
  EXPECT_EQ(policy.refresh(), index);
  EXPECT_EQ(policy.parse_count(), 0u);  // parse_count counts file reads only
  EXPECT_TRUE(policy.skipped_files().empty());
  ASSERT_TRUE(policy.register_embedded("lib.json", file_of(entry("two", "[4, 8]"))).is_good());
  std::shared_ptr<const OverrideIndex> replaced = policy.refresh();
  EXPECT_NE(replaced, index);
  EXPECT_EQ(index->lookup(matmul({4, 8}), {})->engine_name, "one");  // an index once returned never changes
  EXPECT_EQ(replaced->lookup(matmul({4, 8}), {})->engine_name, "two");
}

TEST(EmbeddedOverrides, TheProcessPolicyConsultsEmbeddedSourcesWithoutTheVariable) {
  unsetenv(kOverridePathVariable);
  OverridePolicy& policy = OverridePolicy::process();
  ASSERT_TRUE(policy.register_embedded("process_test.json", file_of(entry("compiled_in", "[4, 8]"))).is_good());
  std::shared_ptr<const OverrideIndex> index = policy.refresh_from_environment();
  ASSERT_TRUE(index);
  EXPECT_EQ(index->lookup(matmul({4, 8}), {})->engine_name, "compiled_in");
  // Leave the process policy without entries for the other tests of this binary.
  ASSERT_TRUE(policy.register_embedded("process_test.json", file_of("")).is_good());
  EXPECT_FALSE(policy.refresh_from_environment()->lookup(matmul({4, 8}), {}));
}

// Readers must see whole sources: every index holds the two entries of one
// registration, never one of each.
TEST(EmbeddedOverrides, ConcurrentRegistrationAndRefreshSeeWholeSources) {
  ScratchDir dir("tunekit-embedded");
  write(dir.path() / "user.json", file_of(entry("from_file", "[9, 9]")));
  OverridePolicy policy;
  policy.set_paths({dir.path() / "user.json"});
  const std::string versions[2] = {file_of(entry("even", "[4, 8]") + "," + entry("even", "[2, 2]")),
                                   file_of(entry("odd", "[4, 8]") + "," + entry("odd", "[2, 2]"))};
  ASSERT_TRUE(policy.register_embedded("lib.json", versions[0]).is_good());
  constexpr int kRegistrations = 200;
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, lookups{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        std::shared_ptr<const OverrideIndex> index = policy.refresh();
        const auto a = index->lookup(matmul({4, 8}), {});
        const auto b = index->lookup(matmul({2, 2}), {});
        const auto c = index->lookup(matmul({9, 9}), {});
        if (!a || !b || !c || a->engine_name != b->engine_name || c->engine_name != "from_file" ||
            index->entry_count() != 3) {
          ++torn;
        }
        ++lookups;
      }
    });
  }
  for (int i = 1; i <= kRegistrations; ++i) {
    ASSERT_TRUE(policy.register_embedded("lib.json", versions[i % 2]).is_good());
    if (i % 50 == 0) policy.set_paths({dir.path() / "user.json"});
  }
  while (lookups.load() < 100) std::this_thread::yield();
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(winner(policy, {4, 8}), "even");  // the last registration (200) wins
  EXPECT_EQ(policy.refresh()->files().size(), 2u);
}

}  // namespace
}  // namespace tunekit::graph
