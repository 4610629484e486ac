// TOML graph files: a full file with shape sets, and malformed files whose
// errors name the file, the line, the column and the field.
#include "tunekit/graph/graph_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tunekit::graph {
namespace {

const char* kGood = R"(name = "mlp"
compute_data_type = "float"

[[tensors]]
name = "A"
uid = 1
dims = [4, 8]

[[tensors]]
name = "B"
uid = 2
dims = [8, 2]
strides = [2, 1]
data_type = "float"

[[tensors]]
name = "H"
dims = [4, 2]
virtual = true

[[tensors]]
name = "Y"
uid = 3
dims = [4, 2]

[[operations]]
kind = "matmul"
name = "mm"
inputs = { A = "A", B = "B" }
outputs = { C = "H" }

[[operations]]
kind = "pointwise"
name = "act"
inputs = { IN_0 = "H" }
outputs = { OUT_0 = "Y" }
attributes = { mode = "relu" }

[[shape_sets]]
name = "wide"
dims = { A = [4, 16], B = [16, 32], H = [4, 32], Y = [4, 32] }
)";

std::string error_of(const std::string& text) {
  Result<GraphFile> file = parse_graph_file(text, "g.toml");
  return file.ok() ? "OK" : file.error().message();
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(GraphFile, ReadsTensorsOperationsAndShapeSets) {
  Result<GraphFile> file = parse_graph_file(kGood, "g.toml");
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ(file->name, "mlp");
  EXPECT_EQ(file->compute_data_type, DataType::FLOAT);
  ASSERT_EQ(file->tensors.size(), 4u);
  EXPECT_EQ(file->tensors[1].get_stride(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_TRUE(file->tensors[2].get_is_virtual());
  EXPECT_FALSE(file->tensors[2].has_uid());
  ASSERT_EQ(file->operations.size(), 2u);
  EXPECT_EQ(file->operations[1].attributes.at("mode"), Value("relu"));
  ASSERT_EQ(file->shape_sets.size(), 1u);
  EXPECT_EQ(file->shape_sets[0].dims.at("B"), (std::vector<std::int64_t>{16, 32}));

  Result<Graph> graph = make_graph(*file);
  ASSERT_TRUE(graph.ok());
  ASSERT_TRUE(graph->validate().is_good());
  EXPECT_EQ(graph->operations()[0].output("C")->get_uid(), 4);

  Result<Graph> wide = make_graph(*file, 0);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->name(), "mlp/wide");
  ASSERT_TRUE(wide->validate().is_good());
  // The file's strides for B were replaced by packed strides for the new dims.
  EXPECT_EQ(wide->operations()[0].input("B")->get_stride(), (std::vector<std::int64_t>{32, 1}));
  EXPECT_EQ(make_graph(*file, 1).error().message(), "g.toml: shape set index 1 is out of range (1 shape sets)");
}

TEST(GraphFile, ReadsTheExampleFile) {
  const std::filesystem::path path = std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs/matmul_bias_relu.toml";
  Result<GraphFile> file = read_graph_file(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  ASSERT_EQ(file->shape_sets.size(), 2u);
  for (std::size_t set = 0; set < 2; ++set) {
    Result<Graph> graph = make_graph(*file, set);
    ASSERT_TRUE(graph.ok());
    EXPECT_TRUE(graph->validate().is_good()) << graph->validate().message();
  }
}

TEST(GraphFile, MissingFileIsAnIoError) {
  Result<GraphFile> file = read_graph_file("/nonexistent/graph.toml");
  EXPECT_EQ(file.error().code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(file.error().message(), "/nonexistent/graph.toml: cannot open the graph file");
}

TEST(GraphFile, SyntaxErrorsNameTheLine) {
  const std::string message = error_of("name = \"x\"\n[[tensors]\nname = 1\n");
  EXPECT_EQ(message.rfind("g.toml:2:", 0), 0u) << message;
}

TEST(GraphFile, FieldErrorsNameFileLineColumnAndField) {
  EXPECT_EQ(error_of(replace(kGood, "dims = [8, 2]", "dims = [8, \"2\"]")),
            "g.toml:12:12: tensors[1].dims[1]: expected an integer");
  EXPECT_EQ(error_of(replace(kGood, "inputs = { A = \"A\", B = \"B\" }", "inputs = { A = \"A\", B = \"Z\" }")),
            "g.toml:29:25: operations[0].inputs.B: unknown tensor 'Z'");
  EXPECT_EQ(error_of(replace(kGood, "kind = \"matmul\"", "kind = \"gemm\"")),
            "g.toml:27:8: operations[0].kind: unknown operation kind 'gemm'");
  EXPECT_EQ(error_of(replace(kGood, "strides = [2, 1]\ndata_type = \"float\"", "strides = [2, 1]\ndata_type = \"float7\"")),
            "g.toml:14:13: tensors[1].data_type: unknown data type 'float7'");
  EXPECT_EQ(error_of(replace(kGood, "virtual = true", "virtual = 1")),
            "g.toml:19:11: tensors[2].virtual: expected true or false");
  EXPECT_EQ(error_of(replace(kGood, "strides = [2, 1]", "strides = [1]")),
            "g.toml:13:11: tensors[1].strides: has 1 entries but dims has 2");
  EXPECT_EQ(error_of(replace(kGood, "uid = 3\n", "uid = 3\ncolour = \"red\"\n")),
            "g.toml:24:10: tensors[3].colour: unknown field");
  EXPECT_EQ(error_of(replace(kGood, "name = \"H\"", "name = \"A\"")),
            "g.toml:17:8: tensors[2].name: tensor 'A' is defined twice");
  EXPECT_EQ(error_of(replace(kGood, "dims = { A = [4, 16]", "dims = { Q = [4, 16]")),
            "g.toml:41:14: shape_sets[0].dims.Q: unknown tensor 'Q'");
  EXPECT_EQ(error_of(replace(kGood, "name = \"wide\"", "name = \"base\"")),
            "g.toml:40:8: shape_sets[0].name: 'base' is reserved ('base' is the file's own dims, 'all' every shape)");
  EXPECT_EQ(error_of(replace(kGood, "name = \"wide\"", "name = \"all\"")),
            "g.toml:40:8: shape_sets[0].name: 'all' is reserved ('base' is the file's own dims, 'all' every shape)");
  EXPECT_EQ(error_of(replace(kGood, "name = \"wide\"", "name = \"\"")), "g.toml:40:8: shape_sets[0].name: must not be empty");
  EXPECT_EQ(error_of(replace(kGood, "attributes = { mode = \"relu\" }", "attributes = { mode = { x = 1 } }")),
            "g.toml:37:23: operations[1].attributes.mode: expected an integer, number, boolean, string or integer list");
  EXPECT_EQ(error_of("name = \"x\"\n"), "g.toml: tensors: missing");
  EXPECT_EQ(error_of("tensors = 3\n"), "g.toml:1:11: tensors: expected an array of tables ([[tensors]])");
  EXPECT_EQ(error_of("title = 1\n"), "g.toml:1:9: title: unknown field");
}

TEST(GraphFile, InvalidGraphsParseButFailValidation) {
  Result<GraphFile> file = parse_graph_file(replace(kGood, "dims = [4, 2]\nvirtual", "dims = [4, 3]\nvirtual"), "g.toml");
  ASSERT_TRUE(file.ok());
  Result<Graph> graph = make_graph(*file);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph->validate().message(), "matmul 'mm': C tensor 'H' (uid 4): expected dims [4, 2], got [4, 3]");
}

}  // namespace
}  // namespace tunekit::graph
