// Cutting quoted values for messages at a character boundary, repairing
// ill-formed UTF-8 on the way (only as far as the excerpt reaches).
#include "tunekit/core/excerpt.hpp"

#include "tunekit/core/utf8.hpp"
#include "utf8_sequence.hpp"

namespace tunekit::core {

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const detail::Utf8Sequence sequence = detail::first_utf8_sequence(text.substr(i));
    const std::string_view character = sequence.valid ? text.substr(i, sequence.bytes) : kReplacementCharacter;
    if (out.size() + character.size() > max_bytes) return out + "...";
    out.append(character);
    i += sequence.bytes;
  }
  return out;
}

}  // namespace tunekit::core
