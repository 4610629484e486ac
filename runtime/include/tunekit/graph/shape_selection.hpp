// Which shapes of a graph file to run: the file's own dims (named "base")
// and its shape sets, picked by name. By default every shape is picked, so
// a file's whole family of problems is tuned.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/graph_file.hpp"

namespace tunekit::graph {

// Reserved names (a graph file cannot name a shape set so).
inline constexpr std::string_view kBaseShapeName = "base";  // the file's own dims
inline constexpr std::string_view kAllShapesName = "all";   // every shape

// The shapes of `file` to pass to make_graph(): nullopt is the file's own
// dims, an index one of its shape sets. With no names, or with "all" among
// them: the own dims, then every shape set in file order. Otherwise the named
// shapes in the order given, each once. INVALID_VALUE
// "<source>: shape_sets: no shape set named 'x' (shapes: base, small)" for a
// name the file does not have.
Result<std::vector<std::optional<std::size_t>>> select_shapes(const GraphFile& file,
                                                              const std::vector<std::string>& names);

// "base" for nullopt, else the shape set's name.
std::string shape_name(const GraphFile& file, std::optional<std::size_t> shape);

}  // namespace tunekit::graph
