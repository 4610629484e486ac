// Fuzz target of the engine-override file reader. On any bytes: the reader
// returns instead of crashing; every entry index is either loaded or
// rejected, once, in increasing order; and the selection index built from
// what loaded finds, for each loaded entry, a matching entry of the same
// operation when queried with that entry's own shape (wildcards filled in),
// with explain() agreeing with lookup(), and with its first dim doubled a
// nearest tuned shape within the limit or none. What it read, the rejections and
// the misses of a query named by the input's first bytes make the JSON that
// `tunekit overrides show/lookup --json` prints (json_output.hpp). A broken
// invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_output.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/graph/override_index.hpp"
#include "tunekit/internal/knob_json.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

// A query that entry itself describes: -1 becomes 1, absent strides packed.
OverrideQuery query_for(const OverrideEntry& entry) {
  OverrideQuery q;
  q.op = entry.op;
  q.criteria = entry.criteria;
  for (std::size_t i = 0; i < entry.tensors.size(); ++i) {
    const OverrideTensor& t = entry.tensors[i];
    OverrideQueryTensor qt;
    qt.tensor_id = entry.positional ? 'P' + std::to_string(i) : t.tensor_id;
    for (std::int64_t d : t.dims) qt.dims.push_back(d == kOverrideWildcard ? 1 : d);
    qt.strides = t.strides ? *t.strides : TensorAttributes::packed_strides(qt.dims);
    for (std::int64_t& s : qt.strides) s = s == kOverrideWildcard ? 1 : s;
    q.tensors.push_back(std::move(qt));
  }
  return q;
}

// The entry as `tunekit overrides show --json` prints it.
nlohmann::json entry_json(const OverrideEntry& e) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const OverrideTensor& t : e.tensors) {
    nlohmann::json tj{{"dim", t.dims}, {"tensor_id", t.tensor_id}};
    if (t.strides) tj["stride"] = *t.strides;
    tensors.push_back(std::move(tj));
  }
  nlohmann::json out{{"index", e.index},       {"op", e.op},
                     {"criteria", e.criteria}, {"tensors", std::move(tensors)},
                     {"knobs", internal::knob_settings_to_json(e.knobs)}};
  out["engine_name"] = e.engine_name ? nlohmann::json(*e.engine_name) : nlohmann::json(nullptr);
  if (e.metadata) out["metadata"] = {{"mode", e.metadata->mode}, {"strategy", e.metadata->strategy},
                                     {"timestamp", e.metadata->timestamp}};
  if (e.validators) {
    out["validators"] = {{"device_signature", e.validators->device_signature},
                         {"device_name", e.validators->device_name},
                         {"engine_catalogue_version", e.validators->engine_catalogue_version}};
  }
  return out;
}

nlohmann::json misses_json(const OverrideExplanation& explained) {
  nlohmann::json misses = nlohmann::json::array();
  for (const OverrideMiss& miss : explained.misses) {
    fuzz::check_message(miss.reason);
    misses.push_back({{"file", miss.file}, {"entry_index", miss.entry_index}, {"reason", miss.reason}});
  }
  return misses;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool quiet = [] {
    log::set_level(log::Level::OFF);
    return true;
  }();
  (void)quiet;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::check_same_replacement(text);
  Result<OverrideFile> file = parse_override_file(text, "fuzz");
  if (!file.ok()) {
    require(file.error().code() == ErrorCode::INVALID_VALUE);
    require(file.error().message().rfind("fuzz: ", 0) == 0);
    require(file.error().message().size() < 512);  // values in messages are cut
    // `overrides lookup --json` lists a file that does not read as skipped, with this reason.
    fuzz::check_message(file.error().message());
    fuzz::check_json_output({{"skipped", {{{"file", "fuzz"}, {"reason", file.error().message()}}}}});
    return 0;
  }
  nlohmann::json shown_entries = nlohmann::json::array();
  for (const OverrideEntry& entry : file->entries) shown_entries.push_back(entry_json(entry));
  nlohmann::json shown_rejected = nlohmann::json::array();
  for (const OverrideEntryProblem& problem : file->rejected) {
    fuzz::check_message(problem.reason);
    fuzz::check_message(describe(problem));
    shown_rejected.push_back({{"entry_index", problem.index}, {"reason", problem.reason}});
  }
  fuzz::check_json_output({{{"file", file->source},
                            {"version", file->version},
                            {"entries", std::move(shown_entries)},
                            {"rejected", std::move(shown_rejected)}}});
  require(file->version == 1 || file->version == 2);
  std::size_t next = 0, loaded = 0, rejected = 0;
  while (loaded < file->entries.size() || rejected < file->rejected.size()) {
    const bool is_loaded = loaded < file->entries.size() && file->entries[loaded].index == next;
    const bool is_rejected = rejected < file->rejected.size() && file->rejected[rejected].index == next;
    require(is_loaded != is_rejected);
    if (is_loaded) {
      require(file->entries[loaded].positional == (file->version == 1));
      ++loaded;
    } else {
      require(!file->rejected[rejected].reason.empty());
      ++rejected;
    }
    ++next;
  }

  const std::vector<OverrideEntry> entries = file->entries;
  OverrideIndex index({std::move(file).value()});
  require(index.entry_count() == entries.size());
  for (const OverrideEntry& entry : entries) {
    if (entry.positional) continue;  // positional queries need the kind's port order
    const OverrideQuery query = query_for(entry);
    const auto match = index.lookup(query, {});
    require(match.has_value());
    require(match->entry->op == entry.op);
    require(match->exact || entry.is_wildcard());
    const OverrideExplanation explained = index.explain(query, {});
    require(explained.match && explained.match->entry == match->entry);
    require(explained.misses.size() + 1 == entries.size());
    fuzz::check_json_output({{"matched", true},
                             {"engine_name", match->engine_name},
                             {"file", match->file},
                             {"knobs", internal::knob_settings_to_json(match->entry->knobs)},
                             {"misses", misses_json(explained)}});

    // The same shape with its first dim doubled, which nobody tuned: with
    // nearest-shape selection on, an exact match is still exact, and a
    // nearest one is of the operation, within the limit, and what explain()
    // says too.
    OverrideLookupContext nearest;
    nearest.nearest_limit = 2;
    OverrideQuery moved = query;
    if (!moved.tensors.empty() && !moved.tensors[0].dims.empty() && moved.tensors[0].dims[0] < (std::int64_t{1} << 40)) {
      moved.tensors[0].dims[0] *= 2;
    }
    const auto near = index.lookup(moved, nearest);
    if (near) {
      require(near->entry->op == entry.op);
      require(near->exact != near->nearest_distance.has_value() || (!near->exact && near->entry->is_wildcard()));
      if (near->nearest_distance) require(*near->nearest_distance >= 0 && *near->nearest_distance <= 2);
    }
    const OverrideExplanation near_explained = index.explain(moved, nearest);
    require(near_explained.match.has_value() == near.has_value());
    require(!near || near_explained.match->entry == near->entry);
    nlohmann::json near_json{{"matched", near.has_value()}, {"misses", misses_json(near_explained)}};
    if (near && near->nearest_distance) near_json["nearest"] = {{"distance", *near->nearest_distance}};
    fuzz::check_json_output(near_json);
  }
  // An operation named by the input's first bytes (as `--op` may be, with
  // any bytes): the misses quote it.
  OverrideQuery named;
  named.op = std::string(text.substr(0, 16));
  const OverrideExplanation explained = index.explain(named, {});
  fuzz::check_json_output({{"matched", explained.match.has_value()}, {"misses", misses_json(explained)}});
  return 0;
}
