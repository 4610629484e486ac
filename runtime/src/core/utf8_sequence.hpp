// The one decoding step of core's UTF-8 functions (utf8.cpp, excerpt.cpp):
// how long the sequence at the start of a text is, and whether it is
// well-formed. Private to the core module.
#pragma once

#include <cstddef>
#include <string_view>

namespace tunekit::core::detail {

struct Utf8Sequence {
  std::size_t bytes = 0;  // at least 1 for a non-empty text
  bool valid = false;
};

// The first sequence of `text` (not empty): a well-formed character (1 to 4
// bytes, valid), or the maximal subpart that replace_invalid_utf8 turns into
// one U+FFFD (1 to 3 bytes, not valid). Lead bytes and the range of the
// byte after them follow Unicode's table 3-7; every later byte is 80..BF.
inline Utf8Sequence first_utf8_sequence(std::string_view text) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {1, true};
  std::size_t continuation = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the byte after the lead
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
  } else if (lead == 0xE0) {
    continuation = 2;
    low = 0xA0;  // below: overlong
  } else if (lead == 0xED) {
    continuation = 2;
    high = 0x9F;  // above: a UTF-16 surrogate
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    continuation = 2;
  } else if (lead == 0xF0) {
    continuation = 3;
    low = 0x90;  // below: overlong
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    continuation = 3;
  } else if (lead == 0xF4) {
    continuation = 3;
    high = 0x8F;  // above: beyond U+10FFFF
  } else {
    return {1, false};  // 80..BF (no lead), C0, C1 (always overlong), F5..FF
  }
  for (std::size_t i = 1; i <= continuation; ++i) {
    if (i >= text.size() || byte(i) < low || byte(i) > high) return {i, false};
    low = 0x80;
    high = 0xBF;
  }
  return {continuation + 1, true};
}

}  // namespace tunekit::core::detail
