// The bound check of TOML text: each limit exactly at and one past its
// value, the positions it reports, and the TOML constructs (strings,
// multi-line strings, comments, quoted keys, values spanning lines) whose
// dots and brackets must not be counted.
#include "tunekit/store/toml_limits.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tunekit::store {
namespace {

// "x.x.x" with `parts` parts.
std::string dotted(std::size_t parts) {
  std::string key = "x";
  for (std::size_t i = 1; i < parts; ++i) key += ".x";
  return key;
}

std::string nested(std::size_t levels, char open = '[', char close = ']') {
  return std::string(levels, open) + std::string(levels, close);
}

std::string describe(std::string_view text, const TomlLimits& limits = {}) {
  auto violation = find_toml_limit_violation(text, limits);
  return violation ? violation->describe("f.toml") : "OK";
}

TEST(TomlLimits, DefaultsAreSixteenMebibytesAndSixtyFourPartsAndLevels) {
  const TomlLimits limits;
  EXPECT_EQ(limits.max_bytes, 16u * 1024 * 1024);
  EXPECT_EQ(limits.max_key_parts, 64u);
  EXPECT_EQ(limits.max_nesting, 64u);
}

TEST(TomlLimits, ATableHeaderOfExactlyTheLimitIsAcceptedAndOneMorePartIsNot) {
  EXPECT_EQ(describe("[" + dotted(64) + "]\n"), "OK");
  EXPECT_EQ(describe("[[" + dotted(64) + "]]\n"), "OK");
  EXPECT_EQ(describe("a = 1\n\n  [" + dotted(65) + "]\n"),
            "f.toml:3:3: table header with more than 64 dotted parts (limit: 64 parts per key)");
  EXPECT_EQ(describe("[[" + dotted(65) + "]]\n"),
            "f.toml:1:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

TEST(TomlLimits, FiftyThousandPartsAreReportedAtTheHeader) {
  auto violation = find_toml_limit_violation("schema_version = 1\n[" + dotted(50000) + "]\n");
  ASSERT_TRUE(violation.has_value());
  EXPECT_EQ(violation->line, 2u);
  EXPECT_EQ(violation->column, 1u);
}

TEST(TomlLimits, DottedKeysLeftOfEqualsAndInsideInlineTablesAreCounted) {
  EXPECT_EQ(describe(dotted(64) + " = 1\n"), "OK");
  EXPECT_EQ(describe("[t]\n" + dotted(65) + " = 1\n"),
            "f.toml:2:1: dotted key with more than 64 parts (limit: 64 parts per key)");
  EXPECT_EQ(describe("a = { b = 1, " + dotted(64) + " = 2 }\n"), "OK");
  EXPECT_EQ(describe("a = { b = 1, " + dotted(65) + " = 2 }\n"),
            "f.toml:1:14: dotted key with more than 64 parts (limit: 64 parts per key)");
  EXPECT_EQ(describe("a = [{ " + dotted(65) + " = 2 }]\n"),
            "f.toml:1:8: dotted key with more than 64 parts (limit: 64 parts per key)");
  // Whitespace around the dots and quoted parts: still one part each.
  EXPECT_EQ(describe("a . \"b\" . 'c' = 1\n[ a . \"b\" ]\n"), "OK");
  std::string quoted = "\"q\"";
  for (int i = 1; i < 65; ++i) quoted += ".'q'";
  EXPECT_EQ(describe("[" + quoted + "]\n"),
            "f.toml:1:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

TEST(TomlLimits, NestingOfExactlyTheLimitIsAcceptedAndOneMoreLevelIsNot) {
  EXPECT_EQ(describe("a = " + nested(64) + "\n"), "OK");
  EXPECT_EQ(describe("a = " + nested(65) + "\n"),
            "f.toml:1:69: arrays and inline tables nested more than 64 levels deep (limit: 64 levels)");
  std::string tables = "a = ";
  for (int i = 0; i < 64; ++i) tables += "{ b = ";
  EXPECT_EQ(describe(tables + "1" + std::string(64, '}') + "\n"), "OK");
  EXPECT_EQ(describe(tables + "{ b = 1" + std::string(65, '}') + "\n"),
            "f.toml:1:" + std::to_string(4 + 64 * 6 + 1) +
                ": arrays and inline tables nested more than 64 levels deep (limit: 64 levels)");
  // Levels are those open at once: many shallow values are fine.
  std::string siblings = "a = [";
  for (int i = 0; i < 1000; ++i) siblings += "[1], ";
  EXPECT_EQ(describe(siblings + "]\nb = [[2]]\n"), "OK");
}

TEST(TomlLimits, AnArraySpanningLinesKeepsItsLevelsAndItsLinesAreNotHeaders) {
  // Line 3 starts with '[' inside the array: a value, not a table header.
  std::string text = "a = [\n  [1, 2],\n[" + dotted(100) + "]\n]\n";
  EXPECT_EQ(describe(text), "OK") << "dots between values are not key parts";
  text = "a = [\n" + std::string(63, '[') + "\n" + std::string(64, ']') + "\n";
  EXPECT_EQ(describe(text), "OK");
  text = "a = [\n" + std::string(64, '[') + "\n" + std::string(65, ']') + "\n";
  EXPECT_EQ(describe(text), "f.toml:2:64: arrays and inline tables nested more than 64 levels deep (limit: 64 levels)");
}

TEST(TomlLimits, BracketsDotsAndQuotesInsideStringsAndCommentsAreNotCounted) {
  const std::string deep_text = dotted(100) + nested(100) + nested(100, '{', '}');
  EXPECT_EQ(describe("a = \"" + deep_text + "\"\n"), "OK");
  EXPECT_EQ(describe("a = '" + deep_text + "'\n"), "OK");
  EXPECT_EQ(describe("a = \"\"\"\n" + deep_text + "\n\"quoted\" \"\" " + deep_text + "\"\"\"\n"), "OK");
  EXPECT_EQ(describe("a = '''\n" + deep_text + "\n'' " + deep_text + "'''\n"), "OK");
  EXPECT_EQ(describe("# " + deep_text + "\na = 1 # " + deep_text + "\n"), "OK");
  EXPECT_EQ(describe("[a] # " + deep_text + "\n"), "OK");
  EXPECT_EQ(describe("\"" + deep_text + "\" = 1\n['" + deep_text + "']\n"), "OK");
  // Escaped quotes do not end a basic string; a literal string has no escapes.
  EXPECT_EQ(describe("a = \"\\\"" + deep_text + "\\\\\"\nb = 'c:\\'\n"), "OK");
  EXPECT_EQ(describe("a = \"\"\"\\\"\"\"" + deep_text + "\"\"\"\n"), "OK");
  // A multi-line string may end with up to two quotes of its own.
  EXPECT_EQ(describe("a = \"\"\"x\"\"\"\"\"\n[" + dotted(64) + "]\n"), "OK");
  EXPECT_EQ(describe("a = '''x'''''\nb = " + nested(64) + "\n"), "OK");
}

TEST(TomlLimits, WhatFollowsAStringIsCountedAgain) {
  EXPECT_EQ(describe("a = \"[[[[\"\n[" + dotted(65) + "]\n"),
            "f.toml:2:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
  EXPECT_EQ(describe("a = \"\"\"\n]]]\n\"\"\"\nb = " + nested(65) + "\n"),
            "f.toml:4:69: arrays and inline tables nested more than 64 levels deep (limit: 64 levels)");
  EXPECT_EQ(describe("a = '''\n'''\n[" + dotted(65) + "]\n"),
            "f.toml:3:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

TEST(TomlLimits, LineNumbersCountCrlfAndAByteOrderMarkIsSkipped) {
  EXPECT_EQ(describe("\xEF\xBB\xBF[" + dotted(65) + "]\r\n"),
            "f.toml:1:4: table header with more than 64 dotted parts (limit: 64 parts per key)");
  EXPECT_EQ(describe("a = 1\r\nb = 2\r\n" + dotted(65) + " = 3\r\n"),
            "f.toml:3:1: dotted key with more than 64 parts (limit: 64 parts per key)");
}

TEST(TomlLimits, TheFileSizeIsLimitedAsAWhole) {
  TomlLimits small;
  small.max_bytes = 10;
  EXPECT_EQ(describe("a = 123456", small), "OK");
  EXPECT_EQ(describe("a = 1234567", small), "f.toml: 11 bytes, more than the limit of 10 bytes for a TOML file");
  auto violation = find_toml_limit_violation("a = 1234567", small);
  ASSERT_TRUE(violation.has_value());
  EXPECT_EQ(violation->line, 0u);
  EXPECT_EQ(violation->column, 0u);
}

TEST(TomlLimits, OtherLimitsCanBeChosen) {
  TomlLimits tight;
  tight.max_key_parts = 2;
  tight.max_nesting = 1;
  EXPECT_EQ(describe("[a.b]\nc.d = [1]\n", tight), "OK");
  EXPECT_EQ(describe("[a.b.c]\n", tight), "f.toml:1:1: table header with more than 2 dotted parts (limit: 2 parts per key)");
  EXPECT_EQ(describe("c = [[1]]\n", tight),
            "f.toml:1:6: arrays and inline tables nested more than 1 levels deep (limit: 1 levels)");
}

TEST(TomlLimits, CheckIsAnInvalidValueErrorNamingTheSource) {
  EXPECT_TRUE(check_toml_limits("a = 1\n", "f.toml").is_good());
  const Error error = check_toml_limits("[" + dotted(65) + "]\n", "graphs/deep.toml");
  EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(error.message(), "graphs/deep.toml:1:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

TEST(TomlLimits, TextThatIsNotTomlStillReturns) {
  const std::vector<std::string> texts{"[", "[[", "\"", "\"\"\"", "'''", "a = \"\\", "a = {", "}}}]]]", "= = =", "a.",
                                      std::string("\0\0[\0", 4)};
  for (const std::string& text : texts) {
    EXPECT_NO_THROW((void)find_toml_limit_violation(text)) << text;
  }
}

}  // namespace
}  // namespace tunekit::store
