// Graph files beyond the TOML limits (store::TomlLimits): a table header or a
// key of tens of thousands of dotted parts, and values nested past the limit,
// are refused before toml++ parses them (it recurses once per part and would
// overflow the stack), with the file, the line and the limit named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tunekit/graph/graph_file.hpp"

namespace tunekit::graph {
namespace {

const char* kTensors = R"(name = "g"

[[tensors]]
name = "A"
dims = [4, 8]
)";

std::string dotted(std::size_t parts) {
  std::string key = "x";
  for (std::size_t i = 1; i < parts; ++i) key += ".x";
  return key;
}

std::string error_of(const std::string& text) {
  Result<GraphFile> file = parse_graph_file(text, "deep.toml");
  return file.ok() ? "OK" : file.error().message();
}

TEST(GraphFileLimits, ATableHeaderOfFiftyThousandPartsIsRefusedNamingFileLineAndLimit) {
  Result<GraphFile> file = parse_graph_file(std::string(kTensors) + "\n[" + dotted(50000) + "]\n", "deep.toml");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(file.error().message(), "deep.toml:7:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
  EXPECT_EQ(error_of(std::string(kTensors) + "[[" + dotted(50000) + "]]\n"),
            "deep.toml:6:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

TEST(GraphFileLimits, AKeyOfFiftyThousandPartsIsRefused) {
  EXPECT_EQ(error_of(std::string(kTensors) + dotted(50000) + " = 1\n"),
            "deep.toml:6:1: dotted key with more than 64 parts (limit: 64 parts per key)");
}

TEST(GraphFileLimits, ValuesNestedPastTheLimitAreRefused) {
  EXPECT_EQ(error_of(std::string(kTensors) + "strides = " + std::string(50000, '[') + std::string(50000, ']') + "\n"),
            "deep.toml:6:75: arrays and inline tables nested more than 64 levels deep (limit: 64 levels)");
}

TEST(GraphFileLimits, AHeaderAtTheLimitReachesTheReader) {
  // 64 parts pass the bound; the reader then rejects the unknown table.
  const std::string message = error_of(std::string(kTensors) + "[" + dotted(64) + "]\n");
  EXPECT_EQ(message.find("limit"), std::string::npos) << message;
  EXPECT_EQ(message.rfind("deep.toml:", 0), 0u) << message;
}

TEST(GraphFileLimits, ReadingADeepFileNamesThePath) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "tunekit-graph-limits-deep.toml";
  std::ofstream(path) << "[" << dotted(50000) << "]\n";
  Result<GraphFile> file = read_graph_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message(),
            path.string() + ":1:1: table header with more than 64 dotted parts (limit: 64 parts per key)");
}

}  // namespace
}  // namespace tunekit::graph
