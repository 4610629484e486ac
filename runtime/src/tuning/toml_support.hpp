// Internal: what the cache and deployment-profile files share. Writing: TOML
// text built by hand so that field order and float formatting are fixed.
// Reading: a field reader over toml++ tables that records the first problem
// (field path, source position, reason) instead of throwing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/value.hpp"
#include "tunekit/platform/device.hpp"
#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::tuning::toml_support {

// A TOML basic string, quoted, with quotes, backslashes and control
// characters escaped.
std::string quote(std::string_view text);
// Shortest text that reads back as the same double, always a TOML float:
// 2.0 (never 2), 0.1, 1e+300, inf, -inf, nan.
std::string format_double(double value);
// int, float, bool or quoted string.
std::string format_value(const core::Value& value);
// A TOML key: bare when it is only letters, digits, '-' and '_'; quoted otherwise.
std::string format_key(std::string_view key);

std::optional<platform::DeviceKind> parse_device_kind(std::string_view name) noexcept;
// "default", "bind:0", "interleave:0-1" (NumaPolicy::to_string's form).
std::optional<platform::NumaPolicy> parse_numa_policy(std::string_view text);

struct Problem {
  std::string field;  // "entries[2].execution.effective_threads"
  std::string message;
  std::size_t line = 0;  // 1-based; 0 when unknown
  std::size_t column = 0;
};

// Reads fields of TOML tables, each named by a dotted path. After the first
// problem every accessor returns an empty value and the problem is kept.
class FieldReader {
 public:
  // `line_offset` is added to every line number (a piece parsed on its own).
  explicit FieldReader(std::size_t line_offset = 0) : line_offset_(line_offset) {}

  bool failed() const noexcept { return problem_.has_value(); }
  const std::optional<Problem>& problem() const noexcept { return problem_; }
  void fail(const toml::node* node, std::string field, std::string message);

  // Every key of `table` must be in `keys`.
  void only_keys(const toml::table& table, std::string_view path, std::initializer_list<std::string_view> keys);

  const toml::table* table(const toml::table& parent, std::string_view path, std::string_view key, bool required);
  std::optional<std::string> string(const toml::table& parent, std::string_view path, std::string_view key,
                                    bool required, bool non_empty = false);
  std::optional<std::int64_t> integer(const toml::table& parent, std::string_view path, std::string_view key,
                                      bool required, std::int64_t minimum, std::int64_t maximum);
  std::optional<std::uint32_t> uint32(const toml::table& parent, std::string_view path, std::string_view key,
                                      bool required, std::uint32_t minimum = 0);
  std::optional<double> number(const toml::table& parent, std::string_view path, std::string_view key,
                               bool required);
  std::optional<std::vector<std::string>> string_list(const toml::table& parent, std::string_view path,
                                                      std::string_view key, bool required);
  std::optional<DataType> data_type(const toml::table& parent, std::string_view path, std::string_view key);
  std::optional<platform::DeviceKind> device(const toml::table& parent, std::string_view path, std::string_view key);
  std::optional<platform::CpuFeatureSet> features(const toml::table& parent, std::string_view path,
                                                  std::string_view key, bool required);
  // A table of scalar values (int, float, bool, string), keyed by name.
  std::optional<std::map<std::string, core::Value>> values(const toml::table& parent, std::string_view path,
                                                           std::string_view key, bool required);

 private:
  const toml::node* find(const toml::table& parent, std::string_view path, std::string_view key, bool required);

  std::size_t line_offset_;
  std::optional<Problem> problem_;
};

std::string join_path(std::string_view path, std::string_view key);

}  // namespace tunekit::tuning::toml_support
