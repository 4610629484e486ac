// Checking and repairing UTF-8, one sequence at a time.
#include "tunekit/core/utf8.hpp"

#include "utf8_sequence.hpp"

namespace tunekit::core {

bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const detail::Utf8Sequence sequence = detail::first_utf8_sequence(text.substr(i));
    if (!sequence.valid) return false;
    i += sequence.bytes;
  }
  return true;
}

std::string replace_invalid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    const detail::Utf8Sequence sequence = detail::first_utf8_sequence(text.substr(i));
    if (sequence.valid) {
      out.append(text.substr(i, sequence.bytes));
    } else {
      out.append(kReplacementCharacter);
    }
    i += sequence.bytes;
  }
  return out;
}

}  // namespace tunekit::core
