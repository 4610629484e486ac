// Reading engine-override files (JSON): version 1 (no version key,
// positional tensors) and version 2 (named tensor ids). The file as a whole
// must be a JSON object with an engine_overrides array; after that every
// entry is checked alone, and a malformed one is reported with its index and
// reason while the others load. Unknown fields are ignored.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/override_entry.hpp"

namespace tunekit::graph {

inline constexpr int kOverrideFileVersion = 2;

// Arrays and objects nested deeper than this make a file unreadable: the
// reader stops there, before building a value that deep (its printing and
// destruction would recurse once per level and could overflow the stack). An
// override file written by tunekit nests 6 levels (the file, the entry list,
// an entry, its tensors, a tensor, its dims).
inline constexpr std::size_t kOverrideFileMaxNesting = 64;

struct OverrideEntryProblem {
  std::size_t index = 0;
  std::string reason;
};

struct OverrideFile {
  // The path, or the name given for text, as messages and the lookup's
  // matches and misses show it: valid UTF-8 (core::replace_invalid_utf8).
  std::string source;
  int version = 1;      // 1 when the file has no version key
  std::vector<OverrideEntry> entries;          // the valid entries, in file order
  std::vector<OverrideEntryProblem> rejected;  // the others
};

// INVALID_VALUE "source: line L, column C: problem" when the text is not
// JSON or nests more than kOverrideFileMaxNesting levels ("... nested more
// than 64 levels deep (limit: 64 levels)"), and "source: problem" when it is
// not an override file (not an object, engine_overrides missing or not an
// array, version other than 1 or 2). Values quoted in messages are cut to
// core::kExcerptBytes.
Result<OverrideFile> parse_override_file(std::string_view text, std::string source);
// As above; IO_ERROR naming the path when it cannot be read.
Result<OverrideFile> read_override_file(const std::filesystem::path& path);

// "entry 3: tensors[1].dim: expected an array of integers" for logs.
std::string describe(const OverrideEntryProblem& problem);

}  // namespace tunekit::graph
