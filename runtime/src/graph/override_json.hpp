// Internal: the JSON form of override entries, shared by the reader, the
// writer and the merge: entry parsing with a reason per problem and the
// writer's match key (knob settings: tunekit/internal/knob_json.hpp).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/override_file.hpp"

namespace tunekit::graph::detail {

// The entry at index, or the reason it is malformed ("tensors[1].dim: ...").
Result<OverrideEntry> parse_override_entry(const nlohmann::json& entry, std::size_t index, bool positional);

// (op, criteria, tensors by id in any order) as text: equal keys are the
// same match key for the writer's replace-on-match.
std::string writer_match_key(const OverrideEntry& entry);

// Parses text as JSON, refusing to nest deeper than kOverrideFileMaxNesting;
// INVALID_VALUE "source: line L, column C: problem". Every reader and writer
// of override files parses through here.
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source);

// A value for a message: its JSON text, cut by core::excerpt.
std::string value_excerpt(const nlohmann::json& value);

// The version of a parsed top-level object: 1 when absent, nullopt when
// the value is not 1 or 2.
std::optional<int> override_file_version(const nlohmann::json& document);

}  // namespace tunekit::graph::detail
