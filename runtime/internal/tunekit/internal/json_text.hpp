// The one way tunekit turns JSON into text, shared by every JSON writer
// (override files, calibration reports, every `--json` of the CLI, the
// generated override headers). nlohmann's dump() throws type_error 316 on a
// string that is not valid UTF-8, and such strings come from input: file
// names, command-line arguments, reasons that quote bytes. Internal, like
// value_json.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tunekit::internal {

// value.dump(indent), except that each ill-formed part of a string becomes
// U+FFFD (the same replacement as core::replace_invalid_utf8) instead of an
// exception. Valid strings give the same bytes as dump(), so generated
// files stay byte-identical. indent -1: one line; n >= 0: n spaces per level.
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The value as it reads back from json_text: every string valid UTF-8 (a
// NaN or infinite number becomes null, as dump() writes it). For a writer
// that compares what it stores with what it later reads.
inline nlohmann::json as_stored(const nlohmann::json& value) { return nlohmann::json::parse(json_text(value)); }

}  // namespace tunekit::internal
