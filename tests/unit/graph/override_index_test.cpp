// The selection lookup: exact before wildcard whatever the order, earlier
// file then earlier entry among equals, positional version-1 entries,
// optional strides, criteria, validators and engines checked against the
// context, and the explanation of every miss.
#include "tunekit/graph/override_index.hpp"

#include <gtest/gtest.h>

#include "graph_test_support.hpp"

namespace tunekit::graph {
namespace {

using testing::LogCapture;

OverrideFile file(const std::string& name, const std::string& entries, bool v2 = true) {
  const std::string text = fmt::format(R"({{{} "engine_overrides": [{}]}})", v2 ? "\"version\": 2," : "", entries);
  Result<OverrideFile> parsed = parse_override_file(text, name);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_TRUE(parsed->rejected.empty()) << describe(parsed->rejected.at(0));
  return std::move(parsed).value();
}

std::string entry(const std::string& engine, const std::string& a_dims, const std::string& extra = "") {
  return fmt::format(R"({{"op": "matmul", "engine_name": "{}", "tensors": [{{"tensor_id": "A", "dim": {}}}]{}}})", engine,
                     a_dims, extra);
}

OverrideQuery matmul_query(std::vector<std::int64_t> a = {4, 8}) {
  OverrideQuery q;
  q.op = "matmul";
  q.tensors.push_back({"A", a, TensorAttributes::packed_strides(a)});
  q.tensors.push_back({"B", {a[1], 2}, {2, 1}});
  q.tensors.push_back({"C", {a[0], 2}, {2, 1}});
  return q;
}

OverrideIndex index_of(std::vector<OverrideFile> files) { return OverrideIndex(std::move(files)); }

TEST(OverrideIndex, AnExactEntryBeatsAWildcardEntryWhateverTheOrder) {
  for (bool wildcard_first : {true, false}) {
    const std::string wild = entry("wild", "[4, -1]");
    const std::string exact = entry("exact", "[4, 8]");
    OverrideIndex index = index_of({file("f.json", wildcard_first ? wild + "," + exact : exact + "," + wild)});
    auto match = index.lookup(matmul_query(), {});
    ASSERT_TRUE(match);
    EXPECT_EQ(match->engine_name, "exact");
    EXPECT_TRUE(match->exact);
  }
}

TEST(OverrideIndex, AmongEqualsTheEarlierFileThenTheEarlierEntryWins) {
  OverrideIndex index = index_of({file("first.json", entry("a", "[4, 8]") + "," + entry("b", "[4, 8]")),
                                  file("second.json", entry("c", "[4, 8]"))});
  auto match = index.lookup(matmul_query(), {});
  ASSERT_TRUE(match);
  EXPECT_EQ(match->engine_name, "a");
  EXPECT_EQ(match->file, "first.json");
  EXPECT_EQ(match->entry->index, 0u);
  OverrideExplanation explained = index.explain(matmul_query(), {});
  ASSERT_EQ(explained.misses.size(), 2u);
  EXPECT_EQ(explained.misses[0].reason, "matches, but entry 0 of first.json wins: an earlier entry of the file takes precedence");
  EXPECT_EQ(explained.misses[1].reason, "matches, but entry 0 of first.json wins: an earlier file takes precedence");

  OverrideIndex wild = index_of({file("first.json", entry("a", "[-1, 8]") + "," + entry("b", "[4, -1]")),
                                 file("second.json", entry("c", "[-1, -1]"))});
  EXPECT_EQ(wild.lookup(matmul_query(), {})->engine_name, "a");
}

TEST(OverrideIndex, OfIdenticalEntriesInOneFileTheFirstWinsWhateverTheirSchema) {
  // The same key three times, once spelled with the output as well: file order decides.
  const std::string with_output = R"({"op": "matmul", "engine_name": "full", "tensors": [
      {"tensor_id": "A", "dim": [4, 8]}, {"tensor_id": "B", "dim": [8, 2]}, {"tensor_id": "C", "dim": [4, 2]}]})";
  const std::string inputs = R"({"op": "matmul", "engine_name": "inputs", "tensors": [
      {"tensor_id": "A", "dim": [4, 8]}, {"tensor_id": "B", "dim": [8, 2]}]})";
  const std::string again = R"({"op": "matmul", "engine_name": "again", "tensors": [
      {"tensor_id": "B", "dim": [8, 2]}, {"tensor_id": "A", "dim": [4, 8]}]})";
  EXPECT_EQ(index_of({file("f.json", inputs + "," + again + "," + with_output)}).lookup(matmul_query(), {})->engine_name,
            "inputs");
  EXPECT_EQ(index_of({file("f.json", with_output + "," + inputs + "," + again)}).lookup(matmul_query(), {})->engine_name,
            "full");
  EXPECT_EQ(index_of({file("f.json", again + "," + with_output + "," + inputs)}).lookup(matmul_query(), {})->engine_name,
            "again");
}

TEST(OverrideIndex, AnEarlierFilesWildcardLosesToALaterFilesExactEntry) {
  OverrideIndex index = index_of({file("user.json", entry("wild", "[-1, -1]")), file("system.json", entry("exact", "[4, 8]"))});
  EXPECT_EQ(index.lookup(matmul_query(), {})->engine_name, "exact");
}

TEST(OverrideIndex, StridesAreOptionalAndChecked) {
  OverrideIndex index = index_of({file("f.json", entry("strided", "[4, 8], \"stride\": [16, 1]") + "," +
                                                     entry("any", "[4, 8]"))});
  EXPECT_EQ(index.lookup(matmul_query(), {})->engine_name, "any");
  OverrideQuery padded = matmul_query();
  padded.tensors[0].strides = {16, 1};
  EXPECT_EQ(index.lookup(padded, {})->engine_name, "strided");  // the earlier entry of two that match
  OverrideIndex only_strided = index_of({file("f.json", entry("strided", "[4, 8], \"stride\": [16, 1]"))});
  EXPECT_FALSE(only_strided.lookup(matmul_query(), {}));
  EXPECT_EQ(only_strided.lookup(padded, {})->engine_name, "strided");
  OverrideIndex wild_stride = index_of({file("f.json", entry("ws", "[4, 8], \"stride\": [-1, 1]"))});
  EXPECT_EQ(wild_stride.lookup(padded, {})->engine_name, "ws");
  EXPECT_FALSE(wild_stride.lookup(padded, {})->exact);
}

TEST(OverrideIndex, NamedTensorsMatchInAnyOrder) {
  OverrideIndex index = index_of({file("f.json", R"({"op": "matmul", "engine_name": "e", "tensors": [
      {"tensor_id": "C", "dim": [4, 2]}, {"tensor_id": "B", "dim": [8, 2]}, {"tensor_id": "A", "dim": [4, 8]}]})")});
  EXPECT_EQ(index.lookup(matmul_query(), {})->engine_name, "e");
  EXPECT_FALSE(index.lookup(matmul_query({4, 9}), {}));
}

TEST(OverrideIndex, VersionOneEntriesMatchByPosition) {
  OverrideIndex index = index_of({file("v1.json", R"({"op": "matmul", "engine_id": 5, "tensors": [
      {"dim": [4, 8]}, {"dim": [8, 2]}]})",
                                       false)});
  auto match = index.lookup(matmul_query(), {});
  ASSERT_TRUE(match);
  EXPECT_EQ(match->engine_id, 5);
  EXPECT_TRUE(match->exact);
  OverrideIndex swapped = index_of({file("v1.json", R"({"op": "matmul", "engine_id": 5, "tensors": [
      {"dim": [8, 2]}, {"dim": [4, 8]}]})",
                                         false)});
  EXPECT_FALSE(swapped.lookup(matmul_query(), {}));
}

TEST(OverrideIndex, CriteriaMustMatchExactly) {
  OverrideQuery q;
  q.op = "pointwise";
  q.criteria["pointwise_mode"] = 6;
  q.tensors.push_back({"IN_0", {4}, {1}});
  const std::string e = R"({"op": "pointwise", "engine_name": "%", "criteria": {"pointwise_mode": #},
                            "tensors": [{"tensor_id": "IN_0", "dim": [4]}]})";
  auto with = [&](const std::string& name, int mode) {
    std::string s = e;
    s.replace(s.find('%'), 1, name);
    s.replace(s.find('#'), 1, std::to_string(mode));
    return s;
  };
  OverrideIndex index = index_of({file("f.json", with("relu", 6) + "," + with("add", 10))});
  EXPECT_EQ(index.lookup(q, {})->engine_name, "relu");
  q.criteria["pointwise_mode"] = 10;
  EXPECT_EQ(index.lookup(q, {})->engine_name, "add");
  q.criteria["pointwise_mode"] = 0;
  EXPECT_FALSE(index.lookup(q, {}));
}

class OverrideIndexContext : public testing::GraphFixture {};

TEST_F(OverrideIndexContext, EnginesResolveByNameOrIdInTheRegistry) {
  add(testing::behaviour(7, "seven"));
  build(false);
  OverrideIndex index = index_of({file("f.json", R"({"op": "matmul", "engine_id": 7, "tensors": []})")});
  OverrideLookupContext context;
  context.registry = registry.get();
  auto match = index.lookup(matmul_query(), context);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->engine_name, "seven");
  EXPECT_EQ(match->engine_id, 7);

  OverrideIndex unknown = index_of({file("f.json", entry("ghost", "[4, 8]"))});
  EXPECT_FALSE(unknown.lookup(matmul_query(), context));
  EXPECT_TRUE(unknown.lookup(matmul_query(), {}));  // no registry: not resolved
  OverrideIndex conflicting = index_of({file("f.json", R"({"op": "matmul", "engine_name": "seven", "engine_id": 8, "tensors": []})")});
  auto explained = conflicting.explain(matmul_query(), context);
  EXPECT_FALSE(explained.match);
  ASSERT_EQ(explained.misses.size(), 1u);
  EXPECT_EQ(explained.misses[0].reason, "engine 'seven' has id 7 here, the entry says 8");
}

TEST_F(OverrideIndexContext, AValidatorMismatchIsAMissForThatEntryWithADebugLog) {
  add(testing::behaviour(7, "seven"));
  build(false);
  const std::string catalogue = registry->origin(7)->catalogue_version;
  const std::string other_device = entry("seven", "[4, 8]", R"(, "validators": {"device_signature": "cpu:other", "device_name": "Other"})");
  const std::string other_catalogue = entry("seven", "[4, 8]", R"(, "validators": {"engine_catalogue_version": "old"})");
  const std::string fitting = entry("seven", "[-1, 8]", fmt::format(R"(, "validators": {{"device_signature": "scripted:0", "engine_catalogue_version": "{}"}})", catalogue));
  OverrideIndex index = index_of({file("f.json", other_device + "," + other_catalogue + "," + fitting)});
  OverrideLookupContext context;
  context.registry = registry.get();
  context.device_signature = device->signature();
  LogCapture logs;
  auto match = index.lookup(matmul_query(), context);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->entry->index, 2u);
  EXPECT_FALSE(match->exact);
  EXPECT_EQ(logs.count_containing("overrides: entry 0 of f.json: device signature mismatch: expected 'cpu:other', actual "
                                  "'scripted:0'"),
            1);
  EXPECT_EQ(logs.count_containing("overrides: entry 1 of f.json: engine catalogue mismatch for 'seven': expected 'old', "
                                  "actual '" + catalogue + "'"),
            1);
  auto explained = index.explain(matmul_query(), context);
  ASSERT_EQ(explained.misses.size(), 2u);
  EXPECT_EQ(explained.misses[0].reason, "validated for device 'cpu:other' (Other), this device is 'scripted:0'");
  EXPECT_EQ(explained.misses[1].reason,
            "validated for engine catalogue 'old', the registered catalogue is '" + catalogue + "'");
}

TEST(OverrideIndex, ExplainGivesTheReasonOfEveryMiss) {
  OverrideIndex index = index_of({file("f.json", entry("a", "[4, 8]") + "," + entry("b", "[4, 9]") + "," +
                                                     R"({"op": "conv_fprop", "engine_name": "c", "tensors": []})" + "," +
                                                     entry("d", "[-1, 8]") + "," +
                                                     R"({"op": "matmul", "engine_name": "e", "tensors": [{"tensor_id": "Z", "dim": [1]}]})")});
  OverrideExplanation explained = index.explain(matmul_query(), {});
  ASSERT_TRUE(explained.match);
  EXPECT_EQ(explained.match->engine_name, "a");
  ASSERT_EQ(explained.misses.size(), 4u);
  EXPECT_EQ(explained.misses[0].reason, "tensor A dims 4x9 do not fit 4x8");
  EXPECT_EQ(explained.misses[1].reason, "op 'conv_fprop' is not 'matmul'");
  EXPECT_EQ(explained.misses[2].reason, "matches, but entry 0 of f.json wins: an exact entry beats a wildcard entry");
  EXPECT_EQ(explained.misses[3].reason, "tensor Z is not a tensor of the operation");
  EXPECT_EQ(index.entry_count(), 5u);
}

}  // namespace
}  // namespace tunekit::graph
