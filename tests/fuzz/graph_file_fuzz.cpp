// Fuzz target of the TOML graph-file reader. On any bytes the reader returns
// instead of crashing; an error names the source; a text beyond the TOML
// limits is refused; a file that parses builds
// a graph for its own shapes and for every shape set, and validate() returns
// (accepting or rejecting) without crashing. A broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tunekit/core/log.hpp"
#include "tunekit/graph/graph_file.hpp"
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
  Result<graph::GraphFile> file = graph::parse_graph_file(text, "fuzz.toml");
  if (store::find_toml_limit_violation(text)) require(!file.ok());
  if (!file.ok()) {
    require(file.error().is_bad());
    require(file.error().message().find("fuzz.toml") != std::string::npos);
    return 0;
  }
  require(file->source == "fuzz.toml");
  for (std::size_t set = 0; set <= file->shape_sets.size(); ++set) {
    const std::optional<std::size_t> which = set == 0 ? std::nullopt : std::optional<std::size_t>(set - 1);
    Result<graph::Graph> built = graph::make_graph(*file, which);
    if (!built.ok()) continue;
    Error valid = built->validate();
    require(valid.is_good() || !valid.message().empty());
  }
  return 0;
}
