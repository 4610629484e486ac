// Values quoted from a file into a message are cut to a readable length: a
// message names the file, the field and the value, and a megabyte-long value
// (or a deeply nested one printed whole) would bury the rest.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tunekit::core {

// How many bytes of a value a message shows.
inline constexpr std::size_t kExcerptBytes = 80;

// `text` itself when it has at most `max_bytes` bytes; otherwise its first
// `max_bytes` bytes, shortened further so that no UTF-8 sequence is cut in
// two, followed by "..." (so the result has at most max_bytes + 3 bytes).
std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

}  // namespace tunekit::core
