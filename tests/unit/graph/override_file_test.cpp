// Reading engine-override files: versions 1 and 2, wildcards, optional
// strides, engines by name or id, typed knobs, unknown fields, and the
// entry-by-entry rejection of malformed entries.
#include "tunekit/graph/override_file.hpp"

#include <gtest/gtest.h>

namespace tunekit::graph {
namespace {

TEST(OverrideFile, ReadsVersionTwoWithNamedTensorsMetadataKnobsAndValidators) {
  const char* text = R"({
    "version": 2,
    "engine_overrides": [{
      "op": "matmul", "engine_name": "tiled", "criteria": {"pointwise_mode": 3},
      "tensors": [{"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]}, {"tensor_id": "A", "dim": [4, 8]}],
      "autotune_metadata": {"rank": 0, "min_time_ms": 0.5, "mode": "standard", "strategy": "fixed_average",
                            "timestamp": "2026-04-21T10:30:00Z",
                            "knobs": [{"knob_id": "tile", "type": "int", "value": 16},
                                      {"knob_id": "ratio", "type": "double", "value": 1},
                                      {"knob_id": "acc", "type": "string", "value": "double"}]},
      "validators": {"device_signature": "cpu:x", "engine_catalogue_version": "v7"},
      "something_new": {"ignored": true}
    }]
  })";
  Result<OverrideFile> file = parse_override_file(text, "t.json");
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ(file->version, 2);
  ASSERT_EQ(file->entries.size(), 1u);
  EXPECT_TRUE(file->rejected.empty());
  const OverrideEntry& e = file->entries[0];
  EXPECT_EQ(e.op, "matmul");
  EXPECT_EQ(e.engine_name, "tiled");
  EXPECT_FALSE(e.engine_id);
  EXPECT_FALSE(e.positional);
  EXPECT_EQ(e.criteria.at("pointwise_mode"), 3);
  ASSERT_EQ(e.tensors.size(), 2u);
  EXPECT_EQ(e.tensors[0].tensor_id, "B");
  EXPECT_EQ(e.tensors[0].strides, (std::vector<std::int64_t>{2, 1}));
  EXPECT_FALSE(e.tensors[1].strides);
  ASSERT_EQ(e.knobs.size(), 3u);
  EXPECT_EQ(e.knobs[0], (KnobSetting{"tile", std::int64_t{16}}));
  EXPECT_EQ(e.knobs[1], (KnobSetting{"ratio", 1.0}));  // "double" turns the integer 1 into 1.0
  EXPECT_EQ(e.knobs[2], (KnobSetting{"acc", "double"}));
  ASSERT_TRUE(e.metadata);
  EXPECT_EQ(e.metadata->min_time_ms, 0.5);
  EXPECT_EQ(e.metadata->timestamp, "2026-04-21T10:30:00Z");
  ASSERT_TRUE(e.validators);
  EXPECT_EQ(e.validators->device_signature, "cpu:x");
  EXPECT_EQ(e.validators->engine_catalogue_version, "v7");
  EXPECT_FALSE(e.is_wildcard());
}

TEST(OverrideFile, AFileWithoutVersionIsVersionOneWithPositionalTensors) {
  Result<OverrideFile> file = parse_override_file(
      R"({"engine_overrides": [{"op": "matmul", "engine_id": 7, "tensors": [{"dim": [4, -1]}, {"dim": [-1, 2]}]}]})",
      "v1.json");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->version, 1);
  ASSERT_EQ(file->entries.size(), 1u);
  EXPECT_TRUE(file->entries[0].positional);
  EXPECT_EQ(file->entries[0].engine_id, 7);
  EXPECT_TRUE(file->entries[0].is_wildcard());
  EXPECT_EQ(file->entries[0].describe_engine(), "id 7");
}

TEST(OverrideFile, KnobTypeAliasesAndInferredTypes) {
  Result<OverrideFile> file = parse_override_file(R"({"version": 2, "engine_overrides": [{
      "op": "matmul", "engine_name": "e", "tensors": [],
      "autotune_metadata": {"knobs": [{"knob_id": "a", "type": "int64", "value": 3},
                                      {"knob_id": "b", "type": "float", "value": 0.25},
                                      {"knob_id": "c", "type": "str", "value": "x"},
                                      {"knob_id": "d", "value": 5}, {"knob_id": "e", "value": 2.5},
                                      {"knob_id": "f", "value": "y"}]}}]})",
                                                  "k.json");
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->entries.size(), 1u) << describe(file->rejected.at(0));
  const auto& k = file->entries[0].knobs;
  ASSERT_EQ(k.size(), 6u);
  EXPECT_TRUE(k[0].value.is_int());
  EXPECT_TRUE(k[1].value.is_double());
  EXPECT_TRUE(k[2].value.is_string());
  EXPECT_TRUE(k[3].value.is_int());
  EXPECT_TRUE(k[4].value.is_double());
  EXPECT_TRUE(k[5].value.is_string());
}

TEST(OverrideFile, MissingOrEmptyMetadataAndKnobsAreTolerated) {
  Result<OverrideFile> file = parse_override_file(R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "a", "tensors": []},
      {"op": "matmul", "engine_name": "b", "tensors": [], "autotune_metadata": {}},
      {"op": "matmul", "engine_name": "c", "tensors": [], "autotune_metadata": {"knobs": []}}]})",
                                                  "m.json");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->entries.size(), 3u);
  for (const auto& e : file->entries) EXPECT_TRUE(e.knobs.empty());
}

TEST(OverrideFile, EachMalformedEntryIsRejectedAloneWithItsIndexAndReason) {
  Result<OverrideFile> file = parse_override_file(R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "ok0", "tensors": [{"tensor_id": "A", "dim": [1]}]},
      {"op": "matmul", "tensors": []},
      {"op": "matmul", "engine_name": "x", "tensors": [{"dim": [1]}]},
      {"op": "matmul", "engine_name": "x", "tensors": [{"tensor_id": "A", "dim": [0]}]},
      {"op": "matmul", "engine_name": "x", "tensors": [{"tensor_id": "A", "dim": [2, 2], "stride": [1]}]},
      {"op": "matmul", "engine_name": "x", "tensors": [{"tensor_id": "A", "dim": [1]}, {"tensor_id": "A", "dim": [1]}]},
      {"op": "matmul", "engine_name": "x", "tensors": [], "autotune_metadata": {"knobs": [{"knob_id": "t", "type": "int", "value": 1.5}]}},
      {"op": "matmul", "engine_name": "x", "tensors": [], "criteria": {"mode": "add"}},
      {"op": "matmul", "engine_name": "x", "tensors": [], "validators": {"device_signature": 3}},
      {"op": "", "engine_name": "x", "tensors": []},
      "not an object",
      {"op": "matmul", "engine_id": 2, "tensors": []}
  ]})",
                                                  "bad.json");
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->entries.size(), 2u);
  EXPECT_EQ(file->entries[0].index, 0u);
  EXPECT_EQ(file->entries[1].index, 11u);
  ASSERT_EQ(file->rejected.size(), 10u);
  const std::vector<std::string> reasons{
      "entry 1: engine_name: missing (give engine_name or engine_id)",
      "entry 2: tensors[0].tensor_id: missing (version 2 names every tensor)",
      "entry 3: tensors[0].dim[0]: 0 is out of range (at least 1, or -1 for any)",
      "entry 4: tensors[0].stride: has 1 values but dim has 2",
      "entry 5: tensors[1].tensor_id: 'A' appears twice",
      "entry 6: autotune_metadata.knobs[0].value: expected an integer for type int",
      "entry 7: criteria.mode: expected an integer",
      "entry 8: validators.device_signature: expected a string",
      "entry 9: op: expected a non-empty string",
      "entry 10: entry: expected an object",
  };
  for (std::size_t i = 0; i < reasons.size(); ++i) EXPECT_EQ(describe(file->rejected[i]), reasons[i]);
}

TEST(OverrideFile, FileLevelProblemsNameTheSourceAndPosition) {
  Result<OverrideFile> broken = parse_override_file("{\n  \"version\": 2,\n  oops\n}", "broken.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(broken.error().message().rfind("broken.json: line 3, column 3: ", 0), 0u) << broken.error().message();

  EXPECT_EQ(parse_override_file("[1]", "a.json").error().message(), "a.json: expected a JSON object with engine_overrides");
  EXPECT_EQ(parse_override_file(R"({"version": 3, "engine_overrides": []})", "b.json").error().message(),
            "b.json: version: 3 is not supported (1 or 2)");
  EXPECT_EQ(parse_override_file(R"({"version": 2})", "c.json").error().message(), "c.json: engine_overrides: missing");
  EXPECT_EQ(parse_override_file(R"({"version": 2, "engine_overrides": {}})", "d.json").error().message(),
            "d.json: engine_overrides: expected an array");
}

TEST(OverrideFile, ReadingAMissingFileIsAnIoError) {
  Result<OverrideFile> file = read_override_file("/nonexistent/tunekit/overrides.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code(), ErrorCode::IO_ERROR);
  EXPECT_NE(file.error().message().find("/nonexistent/tunekit/overrides.json"), std::string::npos);
}

// {"version": [[[...1...]]], "engine_overrides": []} with `levels` arrays.
std::string deep_version(std::size_t levels) {
  return "{\"version\": " + std::string(levels, '[') + "1" + std::string(levels, ']') + ", \"engine_overrides\": []}";
}

TEST(OverrideFile, AVersionNestedAHundredThousandLevelsIsRefusedNamingSourcePositionAndLimit) {
  Result<OverrideFile> file = parse_override_file(deep_version(100000), "deep.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code(), ErrorCode::INVALID_VALUE);
  // The file's object is level 1, so the 64th '[' opens level 65.
  EXPECT_EQ(file.error().message(),
            "deep.json: line 1, column 76: arrays and objects nested more than 64 levels deep (limit: 64 levels)");
  EXPECT_EQ(kOverrideFileMaxNesting, 64u);
}

TEST(OverrideFile, NestingUpToTheLimitIsReadAndDeeperObjectsAreRefusedToo) {
  // 63 arrays inside the file's object: 64 levels, read; the version is then unsupported.
  Result<OverrideFile> at_limit = parse_override_file(deep_version(63), "a.json");
  ASSERT_FALSE(at_limit.ok());
  EXPECT_EQ(at_limit.error().message().rfind("a.json: version: [[[[", 0), 0u) << at_limit.error().message();
  EXPECT_EQ(parse_override_file(deep_version(64), "b.json").error().message(),
            "b.json: line 1, column 76: arrays and objects nested more than 64 levels deep (limit: 64 levels)");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":\n";
  EXPECT_EQ(parse_override_file(objects, "c.json").error().message(),
            "c.json: line 65, column 1: arrays and objects nested more than 64 levels deep (limit: 64 levels)");
  // Brackets inside strings (after an escaped quote, too) are not levels.
  const std::string prefix = "{\"note\": \"\\\"" + std::string(1000, '[') + "\", \"version\": ";
  Result<OverrideFile> strings = parse_override_file(prefix + "2, \"engine_overrides\": []}", "d.json");
  ASSERT_TRUE(strings.ok()) << strings.error().message();
  EXPECT_EQ(parse_override_file(prefix + std::string(100, '[') + "]", "d.json").error().message(),
            "d.json: line 1, column " + std::to_string(prefix.size() + 64) +
                ": arrays and objects nested more than 64 levels deep (limit: 64 levels)");
}

TEST(OverrideFile, AValueQuotedInAMessageIsCutToEightyBytes) {
  const std::string long_text(1000, 'v');
  Result<OverrideFile> file = parse_override_file(R"({"version": ")" + long_text + R"(", "engine_overrides": []})", "e.json");
  ASSERT_FALSE(file.ok());
  // The JSON text of the value is a quote and 79 of its letters, then "...".
  EXPECT_EQ(file.error().message(), "e.json: version: \"" + std::string(79, 'v') + "... is not supported (1 or 2)");

  // The parser's own message quotes the token it stopped in: cut as well.
  Result<OverrideFile> unterminated = parse_override_file(R"({"version": ")" + long_text, "u.json");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_NE(unterminated.error().message().find("last read: '\"" + std::string(79, 'v') + "...'"), std::string::npos)
      << unterminated.error().message();
  EXPECT_LT(unterminated.error().message().size(), 300u);

  // A number too large for any JSON number type: the overflow message
  // quotes the digits (found by the fuzzer with 3,000 nines).
  Result<OverrideFile> huge = parse_override_file(R"({"version": 2, "engine_overrides": )" + std::string(3000, '9') + "}",
                                                  "h.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message().find("'" + std::string(80, '9') + "...'"), std::string::npos)
      << huge.error().message();
  EXPECT_LT(huge.error().message().size(), 300u);

  Result<OverrideFile> deep = parse_override_file(deep_version(63), "a.json");
  EXPECT_EQ(deep.error().message(), "a.json: version: " + std::string(63, '[') + "1" +
                                        std::string(16, ']') + "... is not supported (1 or 2)");
}

}  // namespace
}  // namespace tunekit::graph
