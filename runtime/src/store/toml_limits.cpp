// The bound check of TOML text: one pass over the bytes with a small state
// machine (statement start, key, table header, value) and a stack of the
// open arrays and inline tables, skipping strings and comments.
#include "tunekit/store/toml_limits.hpp"

#include <fmt/format.h>

#include <vector>

namespace tunekit::store {
namespace {

class Scanner {
 public:
  Scanner(std::string_view text, const TomlLimits& limits) : text_(text), limits_(limits) {}

  std::optional<TomlLimitViolation> run() {
    if (text_.size() > limits_.max_bytes) {
      return TomlLimitViolation{0, 0,
                                fmt::format("{} bytes, more than the limit of {} bytes for a TOML file",
                                            text_.size(), limits_.max_bytes)};
    }
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
    while (pos_ < text_.size() && !violation_) step();
    return violation_;
  }

 private:
  enum class Mode {
    STATEMENT,     // at the start of a top-level line: a key, a header, a comment or nothing
    KEY,           // inside a key, before its `=`
    KEY_WAIT,      // inside an inline table, waiting for a key (or its closing brace)
    HEADER,        // inside a table header, before its `]`
    AFTER_HEADER,  // the rest of a header's line
    VALUE,         // after `=`: a value, possibly spanning lines inside brackets
  };

  void step() {
    const char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
      if (stack_.empty()) mode_ = Mode::STATEMENT;
      return;
    }
    if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      return;
    }
    if (c == '"' || c == '\'') {
      if (mode_ == Mode::STATEMENT || mode_ == Mode::KEY_WAIT) start_key();
      skip_string(c);
      return;
    }
    switch (mode_) {
      case Mode::STATEMENT: statement(c); break;
      case Mode::KEY_WAIT: key_wait(c); break;
      case Mode::KEY:
      case Mode::HEADER: key(c); break;
      case Mode::AFTER_HEADER: ++pos_; break;
      case Mode::VALUE: value(c); break;
    }
  }

  void statement(char c) {
    if (is_blank(c)) {
      ++pos_;
      return;
    }
    if (c == '[') {
      key_line_ = line_;
      key_column_ = column();
      key_parts_ = 1;
      mode_ = Mode::HEADER;
      pos_ += pos_ + 1 < text_.size() && text_[pos_ + 1] == '[' ? 2 : 1;
      return;
    }
    start_key();
    key(c);
  }

  void key_wait(char c) {
    if (is_blank(c)) {
      ++pos_;
    } else if (c == '}') {
      close();
    } else {
      start_key();
      key(c);
    }
  }

  // KEY and HEADER: count the dots between parts; quoted parts are skipped whole by step().
  void key(char c) {
    ++pos_;
    if (c == '.') {
      if (++key_parts_ > limits_.max_key_parts) {
        const bool header = mode_ == Mode::HEADER;
        violation_ = TomlLimitViolation{
            key_line_, key_column_,
            fmt::format("{} with more than {} {} (limit: {} parts per key)", header ? "table header" : "dotted key",
                        limits_.max_key_parts, header ? "dotted parts" : "parts", limits_.max_key_parts)};
      }
    } else if (c == '=' && mode_ == Mode::KEY) {
      mode_ = Mode::VALUE;
    } else if (c == ']' && mode_ == Mode::HEADER) {
      if (pos_ < text_.size() && text_[pos_] == ']') ++pos_;
      mode_ = Mode::AFTER_HEADER;
    }
  }

  void value(char c) {
    if (c == '[' || c == '{') {
      if (stack_.size() == limits_.max_nesting) {
        violation_ = TomlLimitViolation{
            line_, column(),
            fmt::format("arrays and inline tables nested more than {} levels deep (limit: {} levels)",
                        limits_.max_nesting, limits_.max_nesting)};
        return;
      }
      stack_.push_back(c);
      ++pos_;
      if (c == '{') mode_ = Mode::KEY_WAIT;
      return;
    }
    if (c == ']' || c == '}') {
      close();
      return;
    }
    if (c == ',' && !stack_.empty() && stack_.back() == '{') mode_ = Mode::KEY_WAIT;
    ++pos_;
  }

  // A closing bracket or brace: back to the value that holds it (the rest of
  // the enclosing array or inline table, or of the top-level value).
  void close() {
    ++pos_;
    if (!stack_.empty()) stack_.pop_back();
    mode_ = Mode::VALUE;
  }

  void start_key() {
    key_line_ = line_;
    key_column_ = column();
    key_parts_ = 1;
    mode_ = Mode::KEY;
  }

  // A string opened by `quote` at pos_: single-line strings end at their
  // quote or before a line break (which toml++ rejects); multi-line strings
  // at three quotes, plus up to two quotes that belong to the content.
  void skip_string(char quote) {
    const bool basic = quote == '"';
    const std::string_view triple = basic ? std::string_view("\"\"\"") : std::string_view("'''");
    const bool multi_line = text_.substr(pos_, 3) == triple;
    pos_ += multi_line ? 3 : 1;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        if (!multi_line) return;
        ++pos_;
        ++line_;
        line_start_ = pos_;
        continue;
      }
      if (basic && c == '\\') {
        ++pos_;
        if (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c != quote) {
        ++pos_;
        continue;
      }
      if (!multi_line) {
        ++pos_;
        return;
      }
      if (text_.substr(pos_, 3) == triple) {
        pos_ += 3;
        for (int extra = 0; extra < 2 && pos_ < text_.size() && text_[pos_] == quote; ++extra) ++pos_;
        return;
      }
      ++pos_;
    }
  }

  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  std::size_t column() const { return pos_ - line_start_ + 1; }

  std::string_view text_;
  const TomlLimits& limits_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
  Mode mode_ = Mode::STATEMENT;
  std::vector<char> stack_;  // open '[' and '{' of the current value, at most max_nesting
  std::size_t key_parts_ = 0;
  std::size_t key_line_ = 0;
  std::size_t key_column_ = 0;
  std::optional<TomlLimitViolation> violation_;
};

}  // namespace

std::string TomlLimitViolation::describe(std::string_view source) const {
  if (line == 0) return fmt::format("{}: {}", source, message);
  return fmt::format("{}:{}:{}: {}", source, line, column, message);
}

std::optional<TomlLimitViolation> find_toml_limit_violation(std::string_view text, const TomlLimits& limits) {
  return Scanner(text, limits).run();
}

Error check_toml_limits(std::string_view text, std::string_view source, const TomlLimits& limits) {
  if (auto violation = find_toml_limit_violation(text, limits)) {
    return {ErrorCode::INVALID_VALUE, violation->describe(source)};
  }
  return Error::ok();
}

}  // namespace tunekit::store
