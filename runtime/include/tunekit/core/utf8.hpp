// Text quoted from input (file contents, file names, command-line arguments)
// into a message or a JSON document must be valid UTF-8: a JSON writer
// refuses anything else and a terminal garbles it. Input is bytes, so every
// quote passes through replace_invalid_utf8 (core::excerpt and the messages
// of core::Error do).
#pragma once

#include <string>
#include <string_view>

namespace tunekit::core {

// What stands for bytes that are not UTF-8: U+FFFD REPLACEMENT CHARACTER.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// True when `text` is well-formed UTF-8 (Unicode, table 3-7), which rules
// out: continuation bytes 80..BF where no sequence expects one; C0, C1 and
// F5..FF anywhere; overlong forms (C0 AF, E0 80 AF, F0 80 80 AF); UTF-16
// surrogates U+D800..U+DFFF (ED A0 80 .. ED BF BF); code points above
// U+10FFFF (F4 90 80 80 and up); a sequence cut short, at the end or not.
// The empty text is valid.
bool is_valid_utf8(std::string_view text) noexcept;

// `text` with every ill-formed part replaced by U+FFFD, one per maximal
// subpart (Unicode's recommended practice, which nlohmann::json's
// error_handler_t::replace follows too, so a string reads the same in a
// message and in JSON output):
//   - the start of a well-formed sequence that stops short, at the end of
//     the text or before a byte that cannot continue it, is one U+FFFD:
//     "a\xE2\x82" -> "a\uFFFD", "\xE2\x82z" -> "\uFFFDz";
//   - every other byte that begins no well-formed sequence is one U+FFFD
//     on its own: "\x80" -> one, "\xC0\xAF" -> two, "\xE0\x80\xAF" -> three,
//     "\xED\xA0\x80" (a surrogate) -> three, "\xFF\xFE" -> two.
// Valid text comes back unchanged, byte for byte. A byte-order mark
// (EF BB BF, the character U+FEFF) is valid text and kept wherever it is;
// whether one at the start of a file is skipped is the file reader's
// decision (the JSON and TOML readers skip it).
std::string replace_invalid_utf8(std::string_view text);

}  // namespace tunekit::core
