// Values quoted from a file into a message are cut to a readable length: a
// message names the file, the field and the value, and a megabyte-long value
// (or a deeply nested one printed whole) would bury the rest. Quoted bytes
// may be anything, so the excerpt is also made valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tunekit::core {

// How many bytes of a value a message shows.
inline constexpr std::size_t kExcerptBytes = 80;

// `text` made valid UTF-8 as replace_invalid_utf8 (core/utf8.hpp) does,
// each ill-formed part becoming U+FFFD: whole when that has at most
// `max_bytes` bytes; otherwise its longest start of whole characters that
// fits in `max_bytes` bytes followed by "..." (so the result has at most
// max_bytes + 3 bytes). A character is never cut in two, and a U+FFFD (3
// bytes) counts like any other character.
std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

}  // namespace tunekit::core
