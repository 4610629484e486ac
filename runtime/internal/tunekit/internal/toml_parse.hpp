// The one way tunekit hands TOML text to toml++: the input limits first
// (store/toml_limits.hpp, so no file can make the recursive parser overflow
// the stack), then the parse, with every problem as INVALID_VALUE
// "source:line:column: problem". Internal: it brings in toml++, so it is
// never installed; graph files, deployment profiles and tuning specs read
// through it (the cache reader salvages entry by entry on the same limits).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <toml++/toml.h>

#include "tunekit/core/result.hpp"
#include "tunekit/store/toml_limits.hpp"

namespace tunekit::internal {

inline Result<toml::table> parse_toml_document(std::string_view text, const std::string& source) {
  TUNEKIT_RETURN_IF_ERROR(store::check_toml_limits(text, source));
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}:{}:{}: {}", source, error.source().begin.line,
                                                       error.source().begin.column, error.description()));
  }
}

}  // namespace tunekit::internal
