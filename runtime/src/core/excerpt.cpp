// Cutting quoted values for messages at a UTF-8 character boundary.
#include "tunekit/core/excerpt.hpp"

namespace tunekit::core {

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of a character,
  // which then is left out whole.
  std::size_t back = 0;
  while (end > 0 && back < 3 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
    ++back;
  }
  return std::string(text.substr(0, end)) + "...";
}

}  // namespace tunekit::core
