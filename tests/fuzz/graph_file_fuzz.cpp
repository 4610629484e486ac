// Fuzz target of the TOML graph-file reader. On any bytes the reader returns
// instead of crashing; an error names the source; a text beyond the TOML
// limits is refused; a file that parses builds
// a graph for its own shapes and for every shape set, and validate() returns
// (accepting or rejecting) without crashing. The names read, every error
// and a shape set named by the input's first bytes make the JSON that
// `tunekit tune --json` prints (json_output.hpp). A broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_output.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/store/toml_limits.hpp"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tunekit;
  log::set_level(log::Level::OFF);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::check_same_replacement(text);
  Result<graph::GraphFile> file = graph::parse_graph_file(text, "fuzz.toml");
  if (store::find_toml_limit_violation(text)) require(!file.ok());
  if (!file.ok()) {
    require(file.error().is_bad());
    require(file.error().message().find("fuzz.toml") != std::string::npos);
    fuzz::check_message(file.error().message());
    return 0;
  }
  require(file->source == "fuzz.toml");
  nlohmann::json names{
      {"name", file->name}, {"tensors", nlohmann::json::array()}, {"operations", nlohmann::json::array()}};
  for (const graph::TensorAttributes& t : file->tensors) names["tensors"].push_back(t.get_name());
  for (const graph::GraphFileOperation& op : file->operations) {
    names["operations"].push_back({{"name", op.name}, {"inputs", op.inputs}, {"outputs", op.outputs}});
  }
  fuzz::check_json_output(names);
  nlohmann::json problems = nlohmann::json::array();
  for (std::size_t set = 0; set <= file->shape_sets.size(); ++set) {
    const std::optional<std::size_t> which = set == 0 ? std::nullopt : std::optional<std::size_t>(set - 1);
    nlohmann::json problem{{"graph", file->source}, {"shape_set", graph::shape_name(*file, which)}};
    Result<graph::Graph> built = graph::make_graph(*file, which);
    if (!built.ok()) {
      fuzz::check_message(built.error().message());
      problem["error"] = built.error().message();
    } else {
      Error valid = built->validate();
      require(valid.is_good() || !valid.message().empty());
      fuzz::check_message(valid.message());
      problem["error"] = valid.message();
    }
    problems.push_back(std::move(problem));
  }
  fuzz::check_json_output(problems);
  // `tune --shape-set` with any bytes: a name the file does not have is quoted.
  Result<std::vector<std::optional<std::size_t>>> selected =
      graph::select_shapes(*file, {std::string(text.substr(0, 16))});
  if (!selected.ok()) fuzz::check_message(selected.error().message());
  return 0;
}
