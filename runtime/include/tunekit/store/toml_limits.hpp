// Bounds that every tunekit TOML file (graph files, the calibration cache,
// deployment profiles) must keep before its text reaches toml++: the parser
// and the tables it builds recurse once per dotted key part and per nesting
// level, so a header like [x.x.x...] of 50,000 parts would overflow the
// stack. One linear pass checks the bounds; readers call it first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "tunekit/core/error.hpp"

namespace tunekit::store {

// The limits are far above what tunekit writes (a cache entry uses keys of at
// most three parts, [entries.processor.diagnostics], and values nested at most
// two levels, a graph file's shape sets two) and far below what toml++ can
// take without running out of stack.
struct TomlLimits {
  // The whole file, in bytes: 16 MiB (a cache entry is about 1 KiB).
  std::size_t max_bytes = std::size_t{16} << 20;
  // Dotted parts of one key: a table header [a.b.c] or [[a.b]] (3 and 2 parts),
  // a key left of `=` (a.b = 1), a key inside an inline table.
  std::size_t max_key_parts = 64;
  // Arrays and inline tables nested inside one value: [[1]] is 2 levels.
  std::size_t max_nesting = 64;
};

// Where and how a text breaks a limit.
struct TomlLimitViolation {
  // 1-based position of the key that has too many parts or of the bracket
  // that opens one level too many; both 0 when the file as a whole is too large.
  std::size_t line = 0;
  std::size_t column = 0;  // in bytes
  // "table header with more than 64 dotted parts (limit: 64 parts per key)"
  std::string message;
  // "<source>:<line>:<column>: <message>", or "<source>: <message>" without a position.
  std::string describe(std::string_view source) const;
};

// The first limit `text` breaks, in text order, or nullopt. A single pass
// that knows as much TOML as the bounds need: table headers, keys left of
// `=` and inside inline tables, arrays and inline tables in values, basic and
// literal strings (single- and multi-line, with escapes) and comments, so
// that brackets, dots and quotes inside strings and comments are not counted.
// On text that is not TOML it still returns; it then may count what toml++
// would reject anyway.
std::optional<TomlLimitViolation> find_toml_limit_violation(std::string_view text, const TomlLimits& limits = {});

// INVALID_VALUE with TomlLimitViolation::describe(source) when `text` breaks
// a limit; OK otherwise.
Error check_toml_limits(std::string_view text, std::string_view source, const TomlLimits& limits = {});

}  // namespace tunekit::store
