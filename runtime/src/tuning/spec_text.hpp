// Internal: the text side of a tuning spec: byte ranges of toml++ nodes
// (for rewriting values in place) and the checks of names that become C++
// identifiers in the generated header.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::tuning::spec_text {

bool matches(const std::string& text, const char* pattern);

// Names that fit an identifier pattern but cannot name a C++ member or struct.
bool is_cpp_keyword(std::string_view word);

// Byte offsets of the starts of lines, so that toml++'s line/column (columns
// in code points) map to byte ranges of the text.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);

  // The byte offset of a 1-based line and column; the end of the text for a
  // position outside it.
  std::size_t offset(std::size_t line, std::size_t column) const;
  // Where the node's source region is in the text.
  SpecTextRange range(const toml::node& node) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

}  // namespace tunekit::tuning::spec_text
