// Text positions and C++ names of tuning specs.
#include "spec_text.hpp"

#include <regex>
#include <set>

namespace tunekit::tuning::spec_text {

bool matches(const std::string& text, const char* pattern) { return std::regex_match(text, std::regex(pattern)); }

bool is_cpp_keyword(std::string_view word) {
  static const std::set<std::string_view> keywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return keywords.count(word) > 0;
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(i + 1);
  }
}

std::size_t LineIndex::offset(std::size_t line, std::size_t column) const {
  if (line == 0 || line > starts_.size()) return text_.size();
  std::size_t at = starts_[line - 1];
  for (std::size_t c = 1; c < column && at < text_.size(); ++c) {
    ++at;  // past the lead byte, then past continuation bytes
    while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

SpecTextRange LineIndex::range(const toml::node& node) const {
  const toml::source_region& region = node.source();
  SpecTextRange r;
  r.line = region.begin.line;
  r.column = region.begin.column;
  r.offset = offset(region.begin.line, region.begin.column);
  r.length = offset(region.end.line, region.end.column) - r.offset;
  return r;
}

}  // namespace tunekit::tuning::spec_text
