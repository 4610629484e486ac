// The embedded-overrides header text: canonical JSON whatever the input's
// formatting, malformed entries left out and counted, long lines cut into
// literal pieces that concatenate back to the text, and names checked.
#include "overrides_header.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using tunekit::ErrorCode;
using tunekit::codegen::canonical_overrides;
using tunekit::codegen::CanonicalOverrides;
using tunekit::codegen::check_header_names;
using tunekit::codegen::generate_overrides_header;
using tunekit::codegen::kLiteralPieceBytes;
using tunekit::codegen::OverridesHeaderNames;

const std::string kEntry = R"({"op": "matmul", "engine_name": "tiled", "tensors": [{"tensor_id": "A", "dim": [4, 8]}]})";

TEST(CanonicalOverrides, FormattingAndKeyOrderOfTheInputDoNotMatter) {
  auto a = canonical_overrides(R"({"version": 2, "engine_overrides": [)" + kEntry + "]}", "a.json");
  auto b = canonical_overrides(
      "{\n  \"engine_overrides\" : [ { \"tensors\":[{\"dim\":[4,8],\"tensor_id\":\"A\"}],\n"
      "\"engine_name\":\"tiled\",\"op\":\"matmul\"} ],\n\"version\":2 }",
      "b.json");
  ASSERT_TRUE(a.ok()) << a.error().message();
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(a->json, b->json);
  EXPECT_EQ(a->json,
            "{\n"
            "  \"engine_overrides\": [\n"
            "    {\"engine_name\":\"tiled\",\"op\":\"matmul\",\"tensors\":[{\"dim\":[4,8],\"tensor_id\":\"A\"}]}\n"
            "  ],\n"
            "  \"version\": 2\n"
            "}\n");
  EXPECT_EQ(a->entry_count, 1u);
  EXPECT_TRUE(a->left_out.empty());
}

TEST(CanonicalOverrides, OnlyTheDecisionsAreEmbeddedSoTheSameChoicesGiveTheSameBytes) {
  // The same winner and knobs, measured in two tunes: other times, another
  // timestamp, another strategy.
  const auto tuned = [](const std::string& metadata) {
    return R"({"version": 2, "engine_overrides": [{"op": "matmul", "engine_name": "tiled", )"
           R"("tensors": [{"tensor_id": "A", "dim": [4, 8]}], "autotune_metadata": )" +
           metadata + "}]}";
  };
  auto first = canonical_overrides(
      tuned(R"({"min_time_ms": 0.125, "avg_time_ms": 0.13, "timestamp": "2026-12-01T10:00:00Z", "rank": 0, )"
            R"("strategy": "race", "knobs": [{"knob_id": "tile", "type": "int", "value": 32}]})"),
      "first.json");
  auto second = canonical_overrides(
      tuned(R"({"min_time_ms": 0.131, "avg_time_ms": 0.14, "timestamp": "2026-12-07T09:30:00Z", "rank": 0, )"
            R"("strategy": "run_until_stable", "knobs": [{"knob_id": "tile", "type": "int", "value": 32}]})"),
      "second.json");
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(first->json, second->json);
  EXPECT_NE(first->json.find(R"("autotune_metadata":{"knobs":[{"knob_id":"tile","type":"int","value":32}]})"),
            std::string::npos)
      << first->json;
  EXPECT_EQ(first->json.find("min_time_ms"), std::string::npos) << first->json;
  // Another knob value is another decision; `complete` is kept.
  auto other = canonical_overrides(
      tuned(R"({"min_time_ms": 0.125, "complete": false, "knobs": [{"knob_id": "tile", "type": "int", "value": 64}]})"),
      "other.json");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(first->json, other->json);
  EXPECT_NE(other->json.find(R"("complete":false)"), std::string::npos) << other->json;
  // Metadata with no decision in it is left out whole.
  auto times_only = canonical_overrides(tuned(R"({"min_time_ms": 0.125})"), "times.json");
  ASSERT_TRUE(times_only.ok());
  EXPECT_EQ(times_only->json.find("autotune_metadata"), std::string::npos) << times_only->json;
}

TEST(CanonicalOverrides, LeavesOutMalformedEntriesAndCountsTheValidOnes) {
  auto c = canonical_overrides(
      R"({"version": 2, "engine_overrides": [{"op": "matmul"}, )" + kEntry + R"(, {"engine_name": "x"}]})", "c.json");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->entry_count, 1u);
  EXPECT_EQ(c->left_out, (std::vector<std::string>{"entry 0: engine_name: missing (give engine_name or engine_id)",
                                                   "entry 2: op: missing"}));
  auto alone = canonical_overrides(R"({"version": 2, "engine_overrides": [)" + kEntry + "]}", "alone.json");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(c->json, alone->json);
}

TEST(CanonicalOverrides, RefusesTextThatIsNotAnOverrideFileNamingTheSource) {
  auto broken = canonical_overrides("{\n  \"engine_overrides\": [,]}", "dir/broken.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(broken.error().message().rfind("dir/broken.json: line 2, column 24: syntax error", 0), 0u)
      << broken.error().message();
  auto missing = canonical_overrides(R"({"version": 2})", "v.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "v.json: engine_overrides: missing");
}

TEST(CanonicalOverrides, RefusesAFileWhoseEveryEntryIsMalformed) {
  auto all_bad = canonical_overrides(R"({"version": 2, "engine_overrides": [{"op": "matmul"}, 7]})", "bad.json");
  ASSERT_FALSE(all_bad.ok());
  EXPECT_EQ(all_bad.error().message(),
            "bad.json: every entry is malformed (2 in all; the first: entry 0: engine_name: missing (give engine_name "
            "or engine_id))");
  auto empty = canonical_overrides(R"({"version": 2, "engine_overrides": []})", "empty.json");
  ASSERT_TRUE(empty.ok());  // nothing tuned yet is not an error
  EXPECT_EQ(empty->entry_count, 0u);
}

// The literal pieces of the header's JSON constant, unescaped.
std::vector<std::string> literal_pieces(const std::string& header) {
  std::vector<std::string> pieces;
  const std::size_t start = header.find("_json =");
  const std::size_t end = header.find(";\n", start);
  std::size_t i = header.find('"', start);
  while (i != std::string::npos && i < end) {
    std::string piece;
    for (++i; header[i] != '"'; ++i) {
      if (header[i] != '\\') {
        piece += header[i];
        continue;
      }
      const char c = header[++i];
      if (c == 'n') {
        piece += '\n';
      } else if (c == 't') {
        piece += '\t';
      } else if (c >= '0' && c <= '7') {  // three octal digits
        piece += static_cast<char>(std::stoi(header.substr(i, 3), nullptr, 8));
        i += 2;
      } else {
        piece += c;
      }
    }
    pieces.push_back(piece);
    i = header.find('"', i + 1);
  }
  return pieces;
}

TEST(OverridesHeader, LongLinesAreCutIntoPiecesThatConcatenateToTheText) {
  CanonicalOverrides overrides;
  overrides.json = "{\n  \"long\": \"" + std::string(10000, 'x') + "\\\"\"\n}\n";
  overrides.entry_count = 0;
  const std::string header = generate_overrides_header(overrides, OverridesHeaderNames{"long.json"});
  const std::vector<std::string> pieces = literal_pieces(header);
  ASSERT_EQ(pieces.size(), 5u);  // "{\n", the long line in three, "}\n"
  std::string joined;
  for (const std::string& piece : pieces) {
    EXPECT_LE(piece.size(), kLiteralPieceBytes);
    joined += piece;
  }
  EXPECT_EQ(pieces[1].size(), kLiteralPieceBytes);
  EXPECT_EQ(joined, overrides.json);
  std::size_t line_start = 0;
  while (line_start < header.size()) {
    const std::size_t line_end = header.find('\n', line_start);
    EXPECT_LT(line_end - line_start, 64u * 1024u);
    line_start = line_end + 1;
  }
}

TEST(OverridesHeader, UsesTheGivenNamespaceFunctionAndSourceName) {
  CanonicalOverrides overrides{"{}\n", 3, {}};
  const std::string header = generate_overrides_header(overrides, {"conv.json", "my::embedded", "register_conv"});
  EXPECT_NE(header.find("namespace my::embedded {\n"), std::string::npos);
  EXPECT_NE(header.find("inline constexpr std::size_t register_conv_entry_count = 3;\n"), std::string::npos);
  EXPECT_NE(header.find("inline ::tunekit::Error register_conv(\n"), std::string::npos);
  EXPECT_NE(header.find("  return policy.register_embedded(\"conv.json\", register_conv_json);\n"), std::string::npos);
  EXPECT_EQ(header.rfind("// generated by tunekit; do not edit.\n", 0), 0u);
}

TEST(OverridesHeaderNames, RefusesNamesThatAreNotCppIdentifiers) {
  EXPECT_TRUE(check_header_names({"a.json", "a::b_2", "_f1"}).is_good());
  EXPECT_EQ(check_header_names({"a.json", "a::", "f"}).message(),
            "--namespace: 'a::' is not a C++ namespace (identifiers joined by ::)");
  EXPECT_EQ(check_header_names({"a.json", "2a", "f"}).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(check_header_names({"a.json", "a", "f-g"}).message(), "--function: 'f-g' is not a C++ identifier");
  EXPECT_EQ(check_header_names({"a.json", "a", ""}).message(), "--function: '' is not a C++ identifier");
}

}  // namespace
