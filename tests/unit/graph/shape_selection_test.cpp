// Picking the shapes of a graph file by name: every shape by default and
// for "all", the named ones in the order given, and unknown names refused.
#include "tunekit/graph/shape_selection.hpp"

#include <gtest/gtest.h>

namespace tunekit::graph {
namespace {

using Shapes = std::vector<std::optional<std::size_t>>;

GraphFile file_with_sets(std::vector<std::string> names) {
  GraphFile file;
  file.source = "g.toml";
  for (std::string& name : names) file.shape_sets.push_back({std::move(name), {}, {}});
  return file;
}

TEST(ShapeSelection, EveryShapeByDefaultAndForAllTheFilesOwnDimsFirst) {
  const GraphFile file = file_with_sets({"small", "tall"});
  EXPECT_EQ(select_shapes(file, {}).value(), (Shapes{std::nullopt, 0, 1}));
  EXPECT_EQ(select_shapes(file, {"all"}).value(), (Shapes{std::nullopt, 0, 1}));
  EXPECT_EQ(select_shapes(file, {"tall", "all"}).value(), (Shapes{std::nullopt, 0, 1}));
  EXPECT_EQ(select_shapes(file_with_sets({}), {}).value(), (Shapes{std::nullopt}));
}

TEST(ShapeSelection, NamesPickTheirShapesInTheOrderGivenEachOnce) {
  const GraphFile file = file_with_sets({"small", "tall"});
  EXPECT_EQ(select_shapes(file, {"tall"}).value(), (Shapes{1}));
  EXPECT_EQ(select_shapes(file, {"tall", "base", "tall"}).value(), (Shapes{1, std::nullopt}));
  EXPECT_EQ(select_shapes(file_with_sets({}), {"base"}).value(), (Shapes{std::nullopt}));
  EXPECT_EQ(shape_name(file, std::nullopt), "base");
  EXPECT_EQ(shape_name(file, 1), "tall");
}

TEST(ShapeSelection, AnUnknownNameIsRefusedListingTheShapes) {
  Result<Shapes> picked = select_shapes(file_with_sets({"small", "tall"}), {"small", "wide"});
  ASSERT_FALSE(picked.ok());
  EXPECT_EQ(picked.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(picked.error().message(), "g.toml: shape_sets: no shape set named 'wide' (shapes: base, small, tall)");
}

}  // namespace
}  // namespace tunekit::graph
