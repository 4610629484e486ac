// The recoverable error type of tunekit: a code and a message, returned by
// value and never thrown, plus TuningError for the tuning API places where
// the specification says failures propagate as exceptions.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace tunekit::core {

enum class ErrorCode {
  OK,
  INVALID_VALUE,
  NOT_SUPPORTED,
  BAD_STATE,
  COMPILE_FAILED,
  EXECUTION_FAILED,
  IO_ERROR,
  INTERNAL,
};

// Stable names ("OK", "INVALID_VALUE", ...) used in logs and files.
std::string_view to_string(ErrorCode code) noexcept;
std::optional<ErrorCode> parse_error_code(std::string_view name) noexcept;

class [[nodiscard]] Error {
 public:
  Error() = default;
  // Messages quote input (file names, values, a parser's view of the bytes),
  // and they end up in JSON and on terminals: a message that is not valid
  // UTF-8 is stored with U+FFFD for each ill-formed part (core/utf8.hpp).
  Error(ErrorCode code, std::string message);

  static Error ok() { return {}; }

  bool is_good() const noexcept { return code_ == ErrorCode::OK; }
  bool is_bad() const noexcept { return code_ != ErrorCode::OK; }
  ErrorCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  // Places the error passed through, innermost first, one per line; filled by
  // TUNEKIT_RETURN_IF_ERROR so that a failure deep in a call chain can be traced.
  const std::string& trace() const noexcept { return trace_; }
  Error& add_trace(std::string_view expression, std::string_view file, int line);

  // "INVALID_VALUE: message" for logs and command-line output.
  std::string describe() const;

  friend bool operator==(const Error& a, const Error& b) noexcept {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  ErrorCode code_ = ErrorCode::OK;
  std::string message_;
  std::string trace_;
};

// Raised by the tuning API where the specification requires propagation
// (calibration callbacks, validation of registered profiles). what() is
// valid UTF-8, repaired as Error's message is.
class TuningError : public std::runtime_error {
 public:
  explicit TuningError(const std::string& message);
};

}  // namespace tunekit::core

namespace tunekit {
using core::Error;
using core::ErrorCode;
using core::TuningError;
}  // namespace tunekit

// Evaluates an expression yielding an Error and returns it from the enclosing
// function, with the expression and place recorded, when it is bad.
#define TUNEKIT_RETURN_IF_ERROR(expression)                          \
  do {                                                               \
    ::tunekit::core::Error tunekit_error_ = (expression);            \
    if (tunekit_error_.is_bad()) {                                   \
      tunekit_error_.add_trace(#expression, __FILE__, __LINE__);     \
      return tunekit_error_;                                         \
    }                                                                \
  } while (false)
