// Engine-override file reader: JSON parsing with positions, the file-level
// shape, and entry-by-entry checks where one malformed entry is one
// rejection with its index and reason.
#include "tunekit/graph/override_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "override_json.hpp"
#include "tunekit/core/excerpt.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/store/atomic_file.hpp"

namespace tunekit::graph {
namespace detail {
namespace {

using nlohmann::json;

std::optional<std::int64_t> as_int(const json& value) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  return std::nullopt;
}

Error bad(const std::string& field, const std::string& problem) {
  return {ErrorCode::INVALID_VALUE, fmt::format("{}: {}", field, problem)};
}

Result<std::vector<std::int64_t>> extents(const json& value, const std::string& field, std::int64_t smallest) {
  if (!value.is_array()) return bad(field, "expected an array of integers");
  if (value.empty()) return bad(field, "must not be empty");
  std::vector<std::int64_t> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::optional<std::int64_t> v = as_int(value[i]);
    if (!v) return bad(fmt::format("{}[{}]", field, i), "expected an integer");
    if (*v != kOverrideWildcard && *v < smallest) {
      return bad(fmt::format("{}[{}]", field, i),
                 fmt::format("{} is out of range (at least {}, or -1 for any)", *v, smallest));
    }
    out.push_back(*v);
  }
  return out;
}

Result<OverrideTensor> parse_tensor(const json& value, const std::string& field, bool positional) {
  if (!value.is_object()) return bad(field, "expected an object");
  OverrideTensor tensor;
  if (!positional) {
    auto id = value.find("tensor_id");
    if (id == value.end()) return bad(field + ".tensor_id", "missing (version 2 names every tensor)");
    if (!id->is_string()) return bad(field + ".tensor_id", "expected a string");
    tensor.tensor_id = id->get<std::string>();
    if (tensor.tensor_id.empty()) return bad(field + ".tensor_id", "must not be empty");
  }
  auto dim = value.find("dim");
  if (dim == value.end()) return bad(field + ".dim", "missing");
  Result<std::vector<std::int64_t>> dims = extents(*dim, field + ".dim", 1);
  if (!dims.ok()) return dims.error();
  tensor.dims = std::move(dims).value();
  auto stride = value.find("stride");
  if (stride != value.end() && !stride->is_null()) {
    Result<std::vector<std::int64_t>> strides = extents(*stride, field + ".stride", 0);
    if (!strides.ok()) return strides.error();
    if (strides->size() != tensor.dims.size()) {
      return bad(field + ".stride", fmt::format("has {} values but dim has {}", strides->size(), tensor.dims.size()));
    }
    tensor.strides = std::move(strides).value();
  }
  return tensor;
}

std::optional<KnobType> knob_type_alias(std::string_view name) {
  if (name == "int" || name == "int64" || name == "int64_t" || name == "integer") return KnobType::INT;
  if (name == "double" || name == "float" || name == "fp64" || name == "real") return KnobType::DOUBLE;
  if (name == "string" || name == "str") return KnobType::STRING;
  return std::nullopt;
}

Result<KnobSetting> parse_knob(const json& value, const std::string& field) {
  if (!value.is_object()) return bad(field, "expected an object");
  auto id = value.find("knob_id");
  if (id == value.end()) return bad(field + ".knob_id", "missing");
  if (!id->is_string() || id->get<std::string>().empty()) return bad(field + ".knob_id", "expected a non-empty string");
  auto v = value.find("value");
  if (v == value.end()) return bad(field + ".value", "missing");
  std::optional<KnobType> type;
  if (auto t = value.find("type"); t != value.end()) {
    if (!t->is_string()) return bad(field + ".type", "expected a string");
    type = knob_type_alias(t->get<std::string>());
    if (!type) return bad(field + ".type", fmt::format("unknown type '{}' (int, double or string)", core::excerpt(t->get<std::string>())));
  } else if (v->is_number_integer()) {
    type = KnobType::INT;
  } else if (v->is_number_float()) {
    type = KnobType::DOUBLE;
  } else if (v->is_string()) {
    type = KnobType::STRING;
  } else {
    return bad(field + ".value", "expected an integer, a number or a string");
  }
  KnobSetting setting{id->get<std::string>(), std::int64_t{0}};
  switch (*type) {
    case KnobType::INT: {
      const std::optional<std::int64_t> i = as_int(*v);
      if (!i) return bad(field + ".value", "expected an integer for type int");
      setting.value = *i;
      break;
    }
    case KnobType::DOUBLE:
      if (!v->is_number()) return bad(field + ".value", "expected a number for type double");
      setting.value = v->get<double>();
      break;
    case KnobType::STRING:
      if (!v->is_string()) return bad(field + ".value", "expected a string for type string");
      setting.value = v->get<std::string>();
      break;
  }
  return setting;
}

// The string at key, or empty; wrong types are ignored (informational).
std::string info_string(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<OverrideValidators> parse_validators(const json& value) {
  if (!value.is_object()) return bad("validators", "expected an object");
  OverrideValidators v;
  const std::pair<const char*, std::string*> fields[] = {
      {"device_signature", &v.device_signature},   {"device_name", &v.device_name},
      {"tunekit_version", &v.tunekit_version},     {"engine_provider", &v.engine_provider},
      {"engine_catalogue_version", &v.engine_catalogue_version}};
  for (const auto& [key, target] : fields) {
    auto it = value.find(key);
    if (it == value.end()) continue;
    if (!it->is_string()) return bad(std::string("validators.") + key, "expected a string");
    *target = it->get<std::string>();
  }
  return v;
}

}  // namespace

Result<OverrideEntry> parse_override_entry(const json& value, std::size_t index, bool positional) {
  if (!value.is_object()) return bad("entry", "expected an object");
  OverrideEntry entry;
  entry.index = index;
  entry.positional = positional;

  auto op = value.find("op");
  if (op == value.end()) return bad("op", "missing");
  if (!op->is_string() || op->get<std::string>().empty()) return bad("op", "expected a non-empty string");
  entry.op = op->get<std::string>();

  if (auto name = value.find("engine_name"); name != value.end()) {
    if (!name->is_string() || name->get<std::string>().empty()) return bad("engine_name", "expected a non-empty string");
    entry.engine_name = name->get<std::string>();
  }
  if (auto id = value.find("engine_id"); id != value.end()) {
    const std::optional<std::int64_t> v = as_int(*id);
    if (!v || *v < 0) return bad("engine_id", "expected a non-negative integer");
    entry.engine_id = *v;
  }
  if (!entry.engine_name && !entry.engine_id) return bad("engine_name", "missing (give engine_name or engine_id)");

  if (auto criteria = value.find("criteria"); criteria != value.end() && !criteria->is_null()) {
    if (!criteria->is_object()) return bad("criteria", "expected an object of integers");
    for (const auto& [key, v] : criteria->items()) {
      const std::optional<std::int64_t> i = as_int(v);
      if (!i) return bad("criteria." + core::excerpt(key), "expected an integer");
      entry.criteria[key] = *i;
    }
  }

  auto tensors = value.find("tensors");
  if (tensors == value.end()) return bad("tensors", "missing");
  if (!tensors->is_array()) return bad("tensors", "expected an array");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < tensors->size(); ++i) {
    const std::string field = fmt::format("tensors[{}]", i);
    Result<OverrideTensor> tensor = parse_tensor((*tensors)[i], field, positional);
    if (!tensor.ok()) return tensor.error();
    if (!positional && !ids.insert(tensor->tensor_id).second) {
      return bad(field + ".tensor_id", fmt::format("'{}' appears twice", core::excerpt(tensor->tensor_id)));
    }
    entry.tensors.push_back(std::move(tensor).value());
  }

  if (auto metadata = value.find("autotune_metadata"); metadata != value.end() && !metadata->is_null()) {
    if (!metadata->is_object()) return bad("autotune_metadata", "expected an object");
    OverrideMetadata m;
    if (auto t = metadata->find("min_time_ms"); t != metadata->end() && t->is_number()) m.min_time_ms = t->get<double>();
    m.mode = info_string(*metadata, "mode");
    m.strategy = info_string(*metadata, "strategy");
    m.timestamp = info_string(*metadata, "timestamp");
    // Informational like the rest: only an explicit false marks a tune the time budget cut short.
    if (auto complete = metadata->find("complete"); complete != metadata->end() && complete->is_boolean()) {
      m.complete = complete->get<bool>();
    }
    entry.metadata = std::move(m);
    if (auto knobs = metadata->find("knobs"); knobs != metadata->end() && !knobs->is_null()) {
      if (!knobs->is_array()) return bad("autotune_metadata.knobs", "expected an array");
      std::set<std::string> knob_ids;
      for (std::size_t i = 0; i < knobs->size(); ++i) {
        const std::string field = fmt::format("autotune_metadata.knobs[{}]", i);
        Result<KnobSetting> knob = parse_knob((*knobs)[i], field);
        if (!knob.ok()) return knob.error();
        if (!knob_ids.insert(knob->knob_id).second) {
          return bad(field + ".knob_id", fmt::format("'{}' appears twice", core::excerpt(knob->knob_id)));
        }
        entry.knobs.push_back(std::move(knob).value());
      }
    }
  }

  if (auto validators = value.find("validators"); validators != value.end() && !validators->is_null()) {
    Result<OverrideValidators> v = parse_validators(*validators);
    if (!v.ok()) return v.error();
    entry.validators = std::move(v).value();
  }
  return entry;
}

std::string writer_match_key(const OverrideEntry& entry) {
  std::vector<std::string> tensors;
  for (const OverrideTensor& t : entry.tensors) {
    tensors.push_back(fmt::format("{}={}/{}", t.tensor_id, fmt::join(t.dims, "x"),
                                  t.strides ? fmt::format("{}", fmt::join(*t.strides, "x")) : std::string("*")));
  }
  if (!entry.positional) std::sort(tensors.begin(), tensors.end());
  std::vector<std::string> criteria;
  for (const auto& [name, value] : entry.criteria) criteria.push_back(fmt::format("{}={}", name, value));
  return fmt::format("{}|{}|{}|{}", entry.positional ? "v1" : "v2", entry.op, fmt::join(criteria, ","),
                     fmt::join(tensors, ","));
}

namespace {

// Thrown by the parser callback at the first array or object one level too deep.
struct TooDeep {};

// Line and column (1-based, in bytes) of the bracket that opens level
// `level`. The parser stopped there, so the text before it is valid JSON and
// its strings can be skipped by their quotes and backslash escapes alone.
std::pair<std::size_t, std::size_t> position_of_level(std::string_view text, std::size_t level) {
  std::size_t depth = 0, line = 1, line_start = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth == level) return {line, i - line_start + 1};
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return {line, text.size() - line_start + 1};
}

}  // namespace

Result<json> parse_json_text(std::string_view text, const std::string& source) {
  // The callback sees every array and object as it opens, with the number of
  // levels already open; stopping there keeps the parsed value shallow.
  const json::parser_callback_t limit_depth = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        static_cast<std::size_t>(depth) >= kOverrideFileMaxNesting) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), limit_depth);
  } catch (const TooDeep&) {
    const auto [line, column] = position_of_level(text, kOverrideFileMaxNesting + 1);
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("{}: line {}, column {}: arrays and objects nested more than {} levels deep (limit: {} "
                             "levels)",
                             source, line, column, kOverrideFileMaxNesting, kOverrideFileMaxNesting));
  } catch (const json::parse_error& error) {
    std::string what = error.what();
    const std::string marker = "parse error at ";
    const std::size_t at = what.find(marker);
    if (at != std::string::npos) what = what.substr(at + marker.size());
    // nlohmann quotes the token it stopped in, which may be a whole string of the file.
    const std::string last_read = "; last read: '";
    const std::size_t token = what.find(last_read);
    const std::size_t token_end = what.rfind('\'');
    if (token != std::string::npos && token_end > token + last_read.size()) {
      const std::size_t start = token + last_read.size();
      what = what.substr(0, start) + core::excerpt(std::string_view(what).substr(start, token_end - start)) +
             what.substr(token_end);
    }
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: {}", source, what));
  } catch (const std::exception& error) {
    // Other parser errors quote the text they stopped at too ("number
    // overflow parsing '999...'"): cut everything between the quotes.
    std::string what = error.what();
    const std::size_t open = what.find('\'');
    const std::size_t close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      what = what.substr(0, open + 1) + core::excerpt(std::string_view(what).substr(open + 1, close - open - 1)) +
             what.substr(close);
    }
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: {}", source, what));
  }
}

std::string value_excerpt(const json& value) { return core::excerpt(internal::json_text(value)); }

std::optional<int> override_file_version(const json& document) {
  auto version = document.find("version");
  if (version == document.end()) return 1;
  const std::optional<std::int64_t> v = as_int(*version);
  if (v && (*v == 1 || *v == 2)) return static_cast<int>(*v);
  return std::nullopt;
}

}  // namespace detail

bool OverrideEntry::is_wildcard() const {
  for (const OverrideTensor& t : tensors) {
    if (std::find(t.dims.begin(), t.dims.end(), kOverrideWildcard) != t.dims.end()) return true;
    if (t.strides && std::find(t.strides->begin(), t.strides->end(), kOverrideWildcard) != t.strides->end()) return true;
  }
  return false;
}

std::string OverrideEntry::describe_engine() const {
  if (engine_name && engine_id) return fmt::format("'{}' (id {})", *engine_name, *engine_id);
  if (engine_name) return fmt::format("'{}'", *engine_name);
  return fmt::format("id {}", engine_id.value_or(-1));
}

std::string describe(const OverrideEntryProblem& problem) {
  return fmt::format("entry {}: {}", problem.index, problem.reason);
}

Result<OverrideFile> parse_override_file(std::string_view text, std::string source) {
  Result<nlohmann::json> document = detail::parse_json_text(text, source);
  if (!document.ok()) return document.error();
  if (!document->is_object()) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: expected a JSON object with engine_overrides", source));
  }
  const std::optional<int> version = detail::override_file_version(*document);
  if (!version) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("{}: version: {} is not supported (1 or 2)", source,
                             detail::value_excerpt((*document)["version"])));
  }
  auto entries = document->find("engine_overrides");
  if (entries == document->end()) return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: engine_overrides: missing", source));
  if (!entries->is_array()) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: engine_overrides: expected an array", source));
  }
  OverrideFile file;
  file.source = core::replace_invalid_utf8(source);
  file.version = *version;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    Result<OverrideEntry> entry = detail::parse_override_entry((*entries)[i], i, file.version == 1);
    if (entry.ok()) {
      file.entries.push_back(std::move(entry).value());
    } else {
      file.rejected.push_back({i, entry.error().message()});
    }
  }
  return file;
}

Result<OverrideFile> read_override_file(const std::filesystem::path& path) {
  Result<std::string> text = store::read_file(path);
  if (!text.ok()) return text.error();
  return parse_override_file(*text, path.string());
}

}  // namespace tunekit::graph
