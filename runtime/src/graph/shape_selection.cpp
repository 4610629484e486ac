// Picks the shapes of a graph file by name; the default is all of them.
#include "tunekit/graph/shape_selection.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::graph {

std::string shape_name(const GraphFile& file, std::optional<std::size_t> shape) {
  return shape ? file.shape_sets.at(*shape).name : std::string(kBaseShapeName);
}

Result<std::vector<std::optional<std::size_t>>> select_shapes(const GraphFile& file,
                                                              const std::vector<std::string>& names) {
  std::vector<std::optional<std::size_t>> every{std::nullopt};
  for (std::size_t i = 0; i < file.shape_sets.size(); ++i) every.emplace_back(i);
  if (names.empty() || std::find(names.begin(), names.end(), kAllShapesName) != names.end()) return every;

  std::vector<std::optional<std::size_t>> picked;
  for (const std::string& name : names) {
    auto shape = std::find_if(every.begin(), every.end(), [&](const auto& s) { return shape_name(file, s) == name; });
    if (shape == every.end()) {
      std::vector<std::string> known;
      for (const auto& s : every) known.push_back(shape_name(file, s));
      return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: shape_sets: no shape set named '{}' (shapes: {})",
                                                         file.source, name, fmt::join(known, ", ")));
    }
    if (std::find(picked.begin(), picked.end(), *shape) == picked.end()) picked.push_back(*shape);
  }
  return picked;
}

}  // namespace tunekit::graph
