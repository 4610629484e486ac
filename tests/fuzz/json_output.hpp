// What every fuzz target checks of the JSON output of what its reader
// returned: messages (errors, reasons) are valid UTF-8 as the reader wrote
// them; the document the tool's `--json` would print from them serialises
// through internal::json_text without throwing, to UTF-8 text that parses
// back to the same document; and on the input's own bytes, json_text's
// replacement of ill-formed UTF-8 is core::replace_invalid_utf8's. A broken
// invariant traps.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"

namespace tunekit::fuzz {

inline void check(bool condition) {
  if (!condition) __builtin_trap();
}

// A message a reader wrote: UTF-8 already, so even a strict dump takes it.
inline void check_message(std::string_view message) { check(core::is_valid_utf8(message)); }

inline void check_json_output(const nlohmann::json& document) {
  std::string text;
  try {
    text = internal::json_text(document, 2);
  } catch (...) {
    check(false);
  }
  check(core::is_valid_utf8(text));
  const nlohmann::json back = nlohmann::json::parse(text, nullptr, false);
  check(!back.is_discarded());
  check(internal::json_text(back, 2) == text);
}

// At most the first 4 KiB of the input, as a JSON string and repaired by core.
inline void check_same_replacement(std::string_view bytes) {
  const std::string head(bytes.substr(0, std::size_t{4} << 10));
  std::string text;
  try {
    text = internal::json_text(nlohmann::json(head));
  } catch (...) {
    check(false);
  }
  check(text == nlohmann::json(core::replace_invalid_utf8(head)).dump());
}

}  // namespace tunekit::fuzz
