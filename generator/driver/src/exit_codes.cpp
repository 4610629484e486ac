// Exit codes for output failures: the mapping from library errors and the
// final check of standard output.
#include "exit_codes.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace tunekit::cli {

int output_exit_code(const Error& error, int otherwise) {
  return error.code() == ErrorCode::IO_ERROR ? kOutputFailure : otherwise;
}

int finish_standard_output(int exit_code, std::FILE* out) {
  errno = 0;
  const bool flushed = std::fflush(out) == 0;
  if (flushed && std::ferror(out) == 0) return exit_code;
  // An earlier buffered write may have failed with its errno long overwritten.
  const std::string reason = errno != 0 ? std::strerror(errno) : "a write failed";
  fmt::print(stderr, "tunekit: cannot write standard output: {}\n", reason);
  return exit_code == kSuccess ? kOutputFailure : exit_code;
}

}  // namespace tunekit::cli
