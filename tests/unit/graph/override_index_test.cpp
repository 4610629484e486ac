// The selection lookup: exact before wildcard whatever the order, earlier
// file then earlier entry among equals, positional version-1 entries,
// optional strides, criteria, validators and engines checked against the
// context, the explanation of every miss, and the nearest tuned shape.
#include "tunekit/graph/override_index.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

// An entry without data_type is a float graph's: it never stands in for a
// bfloat16 graph of the same dims (exact, wildcard or nearest), whichever
// comes first, and a bfloat16 entry never for a float graph.
TEST(OverrideIndex, AnEntryWithoutADataTypeIsAFloatGraphsOnly) {
  const std::string bf16 = entry("bf16", "[4, 8]", R"(, "criteria": {"data_type": 4})");
  const std::string float_entry = entry("float", "[4, 8]");
  OverrideQuery bf16_query = matmul_query();
  bf16_query.criteria["data_type"] = 4;
  for (bool float_first : {true, false}) {
    SCOPED_TRACE(float_first ? "float entry first" : "bfloat16 entry first");
    OverrideIndex index = index_of({file("f.json", float_first ? float_entry + "," + bf16 : bf16 + "," + float_entry)});
    EXPECT_EQ(index.lookup(bf16_query, {})->engine_name, "bf16");
    EXPECT_EQ(index.lookup(matmul_query(), {})->engine_name, "float");
  }
  OverrideIndex float_only = index_of({file("f.json", float_entry + "," + entry("wild", "[4, -1]"))});
  EXPECT_FALSE(float_only.lookup(bf16_query, {}));
  OverrideLookupContext nearest;
  nearest.nearest_limit = 2;
  EXPECT_FALSE(float_only.lookup(bf16_query, nearest));
  const OverrideExplanation explained = float_only.explain(bf16_query, {});
  ASSERT_EQ(explained.misses.size(), 2u);
  EXPECT_EQ(explained.misses[0].reason,
            "criterion data_type is 1 (a float graph's: the entry names none), the operation has 4");
  OverrideIndex bf16_only = index_of({file("f.json", bf16)});
  EXPECT_FALSE(bf16_only.lookup(matmul_query(), nearest));
  EXPECT_EQ(bf16_only.explain(matmul_query(), {}).misses.at(0).reason, "criterion data_type is 4, the operation has 1");
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

// Nearest tuned shape: the distance is the sum of |log2| of the dims' ratios.
std::string bert_entry(const std::string& engine, std::int64_t tokens, const std::string& extra = "") {
  return fmt::format(R"({{"op": "matmul", "engine_name": "{}", "tensors": [{{"tensor_id": "A", "dim": [{}, 768],
                     "stride": [768, 1]}}, {{"tensor_id": "B", "dim": [768, 3072]}}]{}}})",
                     engine, tokens, extra);
}

OverrideQuery bert_query(std::int64_t tokens, bool b_transposed = false) {
  OverrideQuery q;
  q.op = "matmul";
  q.tensors.push_back({"A", {tokens, 768}, {768, 1}});
  q.tensors.push_back({"B", {768, 3072}, b_transposed ? std::vector<std::int64_t>{1, 768} : std::vector<std::int64_t>{3072, 1}});
  q.tensors.push_back({"C", {tokens, 3072}, {3072, 1}, true});
  return q;
}

OverrideLookupContext nearest_within(double limit) {
  OverrideLookupContext context;
  context.nearest_limit = limit;
  return context;
}

TEST(OverrideIndex, TheNearestTunedShapeStandsInWithinTheLimitAndOnlyThere) {
  OverrideIndex index = index_of({file("f.json", bert_entry("small", 128) + "," + bert_entry("large", 512))});
  // 200 tokens: log2(200 / 128) = 0.64 from the small entry, log2(512 / 200) = 1.36 from the large.
  auto near_small = index.lookup(bert_query(200), nearest_within(2));
  ASSERT_TRUE(near_small);
  EXPECT_EQ(near_small->engine_name, "small");
  EXPECT_FALSE(near_small->exact);
  ASSERT_TRUE(near_small->nearest_distance);
  EXPECT_NEAR(*near_small->nearest_distance, std::log2(200.0 / 128.0), 1e-12);
  EXPECT_EQ(index.lookup(bert_query(400), nearest_within(2))->engine_name, "large");
  // 256 tokens: one factor of two from both; the earlier entry wins the tie.
  EXPECT_EQ(index.lookup(bert_query(256), nearest_within(2))->engine_name, "small");
  // 4096 tokens: 3 from the large entry, beyond the limit; and no nearest
  // shape at all with the limit 0 (the default context).
  EXPECT_FALSE(index.lookup(bert_query(4096), nearest_within(2)));
  EXPECT_TRUE(index.lookup(bert_query(4096), nearest_within(3)));
  EXPECT_FALSE(index.lookup(bert_query(200), {}));
  // An exact entry is still exact.
  auto exact = index.lookup(bert_query(512), nearest_within(2));
  EXPECT_TRUE(exact->exact);
  EXPECT_FALSE(exact->nearest_distance);
}

TEST(OverrideIndex, TheNearestTunedShapeKeepsTheCriteriaTensorsAndStrideOrder) {
  OverrideIndex index = index_of({file("f.json", bert_entry("packed", 128, R"(, "criteria": {"x": 1})"))});
  OverrideQuery query = bert_query(200);
  EXPECT_FALSE(index.lookup(query, nearest_within(2)));  // the query has no criterion x
  query.criteria["x"] = 2;
  EXPECT_FALSE(index.lookup(query, nearest_within(2)));
  query.criteria["x"] = 1;
  EXPECT_TRUE(index.lookup(query, nearest_within(2)));

  // A's strides are stored: a transposed A is another layout. B's are not.
  OverrideIndex plain = index_of({file("f.json", bert_entry("packed", 128))});
  OverrideQuery transposed_a = bert_query(200);
  transposed_a.tensors[0].strides = {1, 200};
  EXPECT_FALSE(plain.lookup(transposed_a, nearest_within(2)));
  EXPECT_TRUE(plain.lookup(bert_query(200, true), nearest_within(2)));
  OverrideQuery other_rank = bert_query(200);
  other_rank.tensors[0].dims = {1, 200, 768};
  other_rank.tensors[0].strides = {153600, 768, 1};
  EXPECT_FALSE(plain.lookup(other_rank, nearest_within(2)));
  // Wildcard entries never stand in as a nearest shape.
  OverrideIndex wild = index_of({file("f.json", entry("wild", "[64, -1]"))});
  EXPECT_FALSE(wild.lookup(matmul_query({200, 8}), nearest_within(10)));
}

TEST_F(OverrideIndexContext, TheNearestTunedShapeSkipsEntriesWhoseValidatorsDoNotFit) {
  add(testing::behaviour(7, "seven"));
  build(false);
  OverrideIndex index = index_of({file("f.json", bert_entry("seven", 160, R"(, "validators": {"engine_catalogue_version": "old"})") +
                                                     "," + bert_entry("seven", 512))});
  OverrideLookupContext context = nearest_within(2);
  context.registry = registry.get();
  auto match = index.lookup(bert_query(128), context);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->entry->index, 1u);  // the nearer entry 0 is validated for another catalogue
  EXPECT_NEAR(*match->nearest_distance, 2.0, 1e-12);
  auto explained = index.explain(bert_query(128), context);
  ASSERT_EQ(explained.misses.size(), 1u);
  EXPECT_EQ(explained.misses[0].reason,
            "tensor A dims 160x768 do not fit 128x768; its tuned shape is at distance 0.322, but it is validated for "
            "engine catalogue 'old', the registered catalogue is '" + registry->origin(7)->catalogue_version + "'");
  auto beyond = index.explain(bert_query(64), nearest_within(1));
  EXPECT_FALSE(beyond.match);
  ASSERT_EQ(beyond.misses.size(), 2u);
  EXPECT_EQ(beyond.misses[0].reason,
            "tensor A dims 160x768 do not fit 64x768; its tuned shape is at distance 1.32, beyond the limit of 1");
  EXPECT_EQ(beyond.misses[1].reason,
            "tensor A dims 512x768 do not fit 64x768; its tuned shape is at distance 3, beyond the limit of 1");
}

}  // namespace
}  // namespace tunekit::graph
