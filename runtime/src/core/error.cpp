// Names of error codes and the trace of an Error.
#include "tunekit/core/error.hpp"

#include <array>

#include "tunekit/core/utf8.hpp"

namespace tunekit::core {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 8> kNames{{
    {ErrorCode::OK, "OK"},
    {ErrorCode::INVALID_VALUE, "INVALID_VALUE"},
    {ErrorCode::NOT_SUPPORTED, "NOT_SUPPORTED"},
    {ErrorCode::BAD_STATE, "BAD_STATE"},
    {ErrorCode::COMPILE_FAILED, "COMPILE_FAILED"},
    {ErrorCode::EXECUTION_FAILED, "EXECUTION_FAILED"},
    {ErrorCode::IO_ERROR, "IO_ERROR"},
    {ErrorCode::INTERNAL, "INTERNAL"},
}};

}  // namespace

std::string_view to_string(ErrorCode code) noexcept {
  for (const auto& [value, name] : kNames) {
    if (value == code) return name;
  }
  return "UNKNOWN";
}

std::optional<ErrorCode> parse_error_code(std::string_view name) noexcept {
  for (const auto& [value, known] : kNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

Error::Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {
  if (!is_valid_utf8(message_)) message_ = replace_invalid_utf8(message_);
}

TuningError::TuningError(const std::string& message) : std::runtime_error(replace_invalid_utf8(message)) {}

Error& Error::add_trace(std::string_view expression, std::string_view file, int line) {
  if (!trace_.empty()) trace_ += '\n';
  trace_ += "  at ";
  trace_ += file;
  trace_ += ':';
  trace_ += std::to_string(line);
  trace_ += ": ";
  trace_ += expression;
  return *this;
}

std::string Error::describe() const {
  std::string text(to_string(code_));
  if (!message_.empty()) {
    text += ": ";
    text += message_;
  }
  return text;
}

}  // namespace tunekit::core
