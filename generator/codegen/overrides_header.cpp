// Canonical override JSON and the header that embeds it.
#include "overrides_header.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cpp_text.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/internal/json_text.hpp"

namespace tunekit::codegen {
namespace {

bool is_identifier(std::string_view text) {
  if (text.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(text.front())) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

bool is_namespace(std::string_view text) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find("::", start);
    if (!is_identifier(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start))) {
      return false;
    }
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

// The text as concatenated literal pieces, one line each, a line longer
// than kLiteralPieceBytes cut into several.
std::string literal_pieces(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t line_end = newline == std::string_view::npos ? text.size() : newline + 1;
    const std::size_t end = std::min(line_end, start + kLiteralPieceBytes);
    out += fmt::format("\n    {}", cpp_string(text.substr(start, end - start)));
    start = end;
  }
  return out.empty() ? " \"\"" : out;
}

// The document with one entry per line, each entry compact: a change to
// one entry is a one-line diff of the generated header.
std::string layout(const nlohmann::json& document) {
  std::string out = "{";
  const char* separator = "\n";
  for (const auto& [key, value] : document.items()) {
    out += separator;
    separator = ",\n";
    out += "  " + internal::json_text(key) + ": ";
    if (key != "engine_overrides" || value.empty()) {
      out += internal::json_text(value);
      continue;
    }
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      out += "    " + internal::json_text(value[i]) + (i + 1 < value.size() ? ",\n" : "\n");
    }
    out += "  ]";
  }
  return out + "\n}\n";
}

}  // namespace

Result<CanonicalOverrides> canonical_overrides(std::string_view text, const std::string& source) {
  Result<graph::OverrideFile> file = graph::parse_override_file(text, source);
  if (!file.ok()) return file.error();
  if (file->entries.empty() && !file->rejected.empty()) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: every entry is malformed ({} in all; the first: {})",
                                                       source, file->rejected.size(),
                                                       graph::describe(file->rejected.front())));
  }
  // The reader accepted the text, so it is JSON nested within the reader's
  // limit, and parsing it again cannot fail or recurse deeply. The default
  // object type is an ordered map: keys come out sorted.
  nlohmann::json document = nlohmann::json::parse(text);
  nlohmann::json& entries = document["engine_overrides"];
  CanonicalOverrides out;
  for (auto problem = file->rejected.rbegin(); problem != file->rejected.rend(); ++problem) {
    entries.erase(problem->index);
  }
  // Only the decisions are embedded: of an entry's autotune_metadata, the
  // knobs (part of the choice) and `complete`; its times, timestamp and
  // counts are a measurement that differs on every tune, and the header
  // must stay byte-identical (and its dependents unbuilt) when the tune
  // chose the same again. The selection policy reads none of them.
  for (nlohmann::json& entry : entries) {
    auto metadata = entry.find("autotune_metadata");
    if (metadata == entry.end() || !metadata->is_object()) continue;
    nlohmann::json decisions = nlohmann::json::object();
    for (const char* field : {"complete", "knobs"}) {
      if (auto it = metadata->find(field); it != metadata->end()) decisions[field] = *it;
    }
    if (decisions.empty()) {
      entry.erase("autotune_metadata");
    } else {
      *metadata = std::move(decisions);
    }
  }
  for (const graph::OverrideEntryProblem& problem : file->rejected) out.left_out.push_back(graph::describe(problem));
  out.entry_count = file->entries.size();
  out.json = layout(document);
  return out;
}

Error check_header_names(const OverridesHeaderNames& names) {
  if (!is_namespace(names.name_space)) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("--namespace: '{}' is not a C++ namespace (identifiers joined by ::)", names.name_space));
  }
  if (!is_identifier(names.function)) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("--function: '{}' is not a C++ identifier", names.function));
  }
  return Error::ok();
}

std::string generate_overrides_header(const CanonicalOverrides& overrides, const OverridesHeaderNames& names) {
  const std::string& f = names.function;
  const std::string source = one_line(names.source_name);
  std::string out;
  out += "// generated by tunekit; do not edit.\n";
  out += fmt::format("// The engine overrides of {} ({} entries), generated by `tunekit gen-overrides`.\n", source,
                     overrides.entry_count);
  out += fmt::format("// {}() adds them to the selection policy after the files of TUNEKIT_HEUR_CONFIG_PATH,\n", f);
  out += "// which take precedence. Tune again (or edit the JSON file) and rebuild to change them.\n";
  out += "#pragma once\n\n";
  out += "#include <cstddef>\n#include <string_view>\n\n";
  out += "#include \"tunekit/core/error.hpp\"\n#include \"tunekit/graph/override_policy.hpp\"\n\n";
  out += fmt::format("namespace {} {{\n\n", names.name_space);
  out += fmt::format("inline constexpr std::size_t {}_entry_count = {};\n\n", f, overrides.entry_count);
  out += "// The file's valid entries, re-serialised with sorted keys.\n";
  out += fmt::format("inline constexpr std::string_view {}_json ={};\n\n", f, literal_pieces(overrides.json));
  out += fmt::format("// Registers the entries as the embedded source {} (again: replaces it).\n",
                     cpp_string(names.source_name));
  out += fmt::format("inline ::tunekit::Error {}(\n", f);
  out += "    ::tunekit::graph::OverridePolicy& policy = ::tunekit::graph::OverridePolicy::process()) {\n";
  out += fmt::format("  return policy.register_embedded({}, {}_json);\n", cpp_string(names.source_name), f);
  out += "}\n\n";
  out += fmt::format("}}  // namespace {}\n", names.name_space);
  return out;
}

}  // namespace tunekit::codegen
