// Graph files (TOML): named tensors, operations that refer to tensors by
// name, and optional shape sets so one file describes a family of problems.
// Reading checks every field and reports "file:line:column: field: problem".
//
//   name = "mlp_layer"                 # optional
//   compute_data_type = "float"        # optional, also io_data_type, intermediate_data_type
//   [[tensors]]
//   name = "A"                         # required, unique
//   uid = 1                            # optional (assigned by validate when absent)
//   dims = [64, 32]                    # required, positive
//   strides = [32, 1]                  # optional (packed)
//   data_type = "float"                # optional
//   virtual = false                    # optional
//   [[operations]]
//   kind = "matmul"                    # an OperationKind name
//   name = "mm"                        # optional
//   inputs = { A = "A", B = "B" }      # port -> tensor name
//   outputs = { C = "C" }
//   attributes = { mode = "add", padding = [1, 1] }  # scalars, or integer lists
//   [[shape_sets]]
//   name = "small"                     # required, unique, not "base" or "all" (shape_selection.hpp)
//   dims = { A = [16, 32] }            # tensor name -> dims
//   strides = { A = [32, 1] }          # optional; otherwise packed for the new dims
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/graph.hpp"

namespace tunekit::graph {

struct GraphFileOperation {
  OperationKind kind = OperationKind::POINTWISE;
  std::string name;
  std::map<std::string, std::string> inputs;   // port -> tensor name
  std::map<std::string, std::string> outputs;  // port -> tensor name
  std::map<std::string, Value> attributes;
  std::map<std::string, std::vector<std::int64_t>> list_attributes;
};

struct GraphShapeSet {
  std::string name;
  std::map<std::string, std::vector<std::int64_t>> dims;     // tensor name -> dims
  std::map<std::string, std::vector<std::int64_t>> strides;  // tensor name -> strides
};

struct GraphFile {
  std::string source;  // path or the name given for text
  std::string name;
  std::optional<DataType> compute_data_type;
  std::optional<DataType> io_data_type;
  std::optional<DataType> intermediate_data_type;
  std::vector<TensorAttributes> tensors;  // every tensor has a unique name
  std::vector<GraphFileOperation> operations;
  std::vector<GraphShapeSet> shape_sets;
};

// IO_ERROR when the file cannot be read; INVALID_VALUE for bad TOML or a bad
// field, with "source:line:column: field: problem", and for a text beyond
// store::TomlLimits (16 MiB, 64 parts per key, 64 nesting levels), checked
// before toml++ sees it: "source:line:column: table header with more than 64
// dotted parts (limit: 64 parts per key)".
Result<GraphFile> read_graph_file(const std::filesystem::path& path);
Result<GraphFile> parse_graph_file(std::string_view text, std::string source_name);

// A Graph for the file's own dims (shape_set = nullopt) or for one of its
// shape sets (index into shape_sets). The graph is not validated yet.
Result<Graph> make_graph(const GraphFile& file, std::optional<std::size_t> shape_set = std::nullopt);

}  // namespace tunekit::graph
