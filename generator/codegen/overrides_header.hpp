// The embedded-overrides header of an engine-override file: the file's valid
// entries as canonical JSON (sorted keys, one compact entry per line, so the
// input's formatting does not matter) in a string literal, and one function
// that registers them with the selection policy. Only the decisions are
// embedded (the measured times and timestamps of autotune_metadata are left
// out): the same decisions give the same bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"

namespace tunekit::codegen {

struct CanonicalOverrides {
  std::string json;                  // the document without its malformed entries
  std::size_t entry_count = 0;       // the valid entries
  std::vector<std::string> left_out;  // "entry 3: tensors[0].dim: missing", one per malformed entry
};

// Validates text with the override-file reader (source names it in errors)
// and re-serialises it. INVALID_VALUE "source: line L, column C: ..." when it
// is not an override file, and "source: every entry is malformed (N in all;
// the first: ...)" when it has entries and none is valid. An empty entry list
// is valid (nothing tuned yet).
Result<CanonicalOverrides> canonical_overrides(std::string_view text, const std::string& source);

struct OverridesHeaderNames {
  std::string source_name;                              // the name registered: the input's file name
  std::string name_space = "tunekit_overrides";         // "a" or "a::b"
  std::string function = "register_embedded_overrides";
};

// INVALID_VALUE naming the option when the namespace or function is not a
// C++ identifier (namespaces: identifiers joined by "::").
Error check_header_names(const OverridesHeaderNames& names);

// String literal pieces hold at most this many bytes of the text (at most
// four times as many characters once escaped), far below the 64 KiB a
// compiler may allow for one literal; the pieces concatenate.
inline constexpr std::size_t kLiteralPieceBytes = 4096;

// The header text; names must pass check_header_names.
std::string generate_overrides_header(const CanonicalOverrides& overrides, const OverridesHeaderNames& names);

}  // namespace tunekit::codegen
