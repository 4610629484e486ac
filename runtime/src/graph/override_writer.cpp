// The override-file writer: the winner's entry with its metadata and
// validators, and this format's merge step (refusals, replace-on-match,
// malformed entries kept, delete all) for store::update_file_locked; and the
// merge of several files.
#include "tunekit/graph/override_writer.hpp"

#include <fmt/format.h>

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "override_json.hpp"
#include "tunekit/internal/knob_json.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/graph/override_query.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/locked_update.hpp"

namespace tunekit::graph {
namespace {

using nlohmann::json;

// The query's tensors as entry tensors: the inputs, or with the outputs too.
json tensors_json(const OverrideQuery& query, bool with_outputs) {
  json tensors = json::array();
  for (const OverrideQueryTensor& t : query.tensors) {
    if (t.output && !with_outputs) continue;
    json tensor{{"tensor_id", t.tensor_id}, {"dim", t.dims}};
    if (!t.strides.empty()) tensor["stride"] = t.strides;
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

json entry_json(const OverrideQuery& query, const AutotuneResult& winner, const OverrideWriteContext& context,
                std::int64_t now) {
  json entry;
  entry["op"] = query.op;
  entry["engine_name"] = winner.engine_name;
  if (!query.criteria.empty()) entry["criteria"] = query.criteria;
  entry["tensors"] = tensors_json(query, false);

  json metadata;
  metadata["rank"] = winner.rank;
  metadata["min_time_ms"] = winner.min_time_ms;
  metadata["avg_time_ms"] = winner.avg_time_ms;
  metadata["stddev_ms"] = winner.stddev_ms;
  metadata["workspace_size"] = winner.workspace_size;
  metadata["mode"] = std::string(to_string(winner.mode_used));
  metadata["supports_exhaustive"] = winner.supports_exhaustive;
  metadata["ran_exhaustive"] = winner.ran_exhaustive;
  metadata["exhaustive_not_run_reason"] =
      winner.mode_used == TuneMode::EXHAUSTIVE && !winner.ran_exhaustive ? winner.exhaustive_not_run_reason : "";
  metadata["strategy"] = std::string(measure::to_string(winner.strategy_used));
  metadata["iterations_run"] = winner.iterations_run;
  if (winner.strategy_used != AutotuneStrategy::FIXED_AVERAGE) metadata["converged"] = winner.converged;
  // Won a tie by the deterministic rule rather than by its time.
  metadata["tied_with_fastest"] = winner.tied_with_fastest;
  if (!winner.unreliable_reason.empty()) metadata["unreliable_reason"] = winner.unreliable_reason;
  // Written only when false, so that a complete run's entries read as before.
  if (winner.budget_ran_out) metadata["complete"] = false;
  metadata["timestamp"] = iso8601_utc(now);
  if (!winner.knob_settings.empty()) {
    json knobs = json::array();
    for (const KnobSetting& knob : canonical_knob_settings(winner.knob_settings)) knobs.push_back(internal::knob_setting_to_json(knob));
    metadata["knobs"] = std::move(knobs);
  }
  entry["autotune_metadata"] = std::move(metadata);

  const EngineOrigin* origin = context.registry.origin(winner.engine_id);
  entry["validators"] = json{{"device_signature", context.device.signature()},
                             {"device_name", context.device.name()},
                             {"tunekit_version", kVersion},
                             {"engine_provider", origin ? origin->provider : std::string()},
                             {"engine_catalogue_version", origin ? origin->catalogue_version : std::string()}};
  return entry;
}

Error refuse(const std::filesystem::path& path, const std::string& why) {
  return {ErrorCode::INVALID_VALUE,
          fmt::format("autotune: refusing to append to {}: {}; appending needs a version-2 override file (set "
                      "delete_all_existing_content to replace it); nothing was written",
                      path.string(), why)};
}

// Appending keeps what is there, so it must be a version-2 override file.
Error check_appendable(const std::filesystem::path& path, const json& stored) {
  if (!stored.is_object()) return refuse(path, "it is not a JSON object");
  if (detail::override_file_version(stored) != 2) {
    return refuse(path, stored.contains("version")
                            ? fmt::format("its version {} is not 2", detail::value_excerpt(stored["version"]))
                            : std::string("it has no version key (a version-1 file with positional tensors)"));
  }
  auto entries = stored.find("engine_overrides");
  if (entries == stored.end()) return refuse(path, "it has no engine_overrides array (not an override file)");
  if (!entries->is_array()) return refuse(path, "its engine_overrides is not an array");
  return Error::ok();
}

// The writer's match key of an entry written as JSON here.
Result<std::string> key_of(const json& entry) {
  Result<OverrideEntry> parsed = detail::parse_override_entry(entry, 0, false);
  if (!parsed.ok()) {
    return Error(ErrorCode::INTERNAL, "autotune: the new override entry does not read back: " + parsed.error().message());
  }
  return detail::writer_match_key(*parsed);
}

}  // namespace

std::string iso8601_utc(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

Result<OverrideWriteReport> write_autotune_override(const OperationGraph& graph, const AutotuneResult& winner,
                                                    const OverrideWriteContext& context,
                                                    const AutotuneStorageConfig& storage,
                                                    const OverrideWriteOptions& options) {
  OverrideWriteReport report;
  report.path = storage.file_path;
  const std::filesystem::path& path = storage.file_path;
  if (path.empty()) return Error(ErrorCode::INVALID_VALUE, "autotune: no override file path");
  if (!winner.succeeded) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("autotune: '{}' did not succeed; only a winner is written", winner.engine_name));
  }
  const std::int64_t now = options.unix_seconds.value_or(static_cast<std::int64_t>(std::time(nullptr)));

  Result<OverrideQuery> query = make_override_query(graph);
  // As stored: names that are not valid UTF-8 are written with U+FFFD, and
  // the entry's match key must be the one it will read back with.
  const json entry = query.ok() ? internal::as_stored(entry_json(*query, winner, context, now)) : json();
  if (!query.ok() || entry.at("tensors").empty()) {
    report.status = OverrideWriteReport::Status::SKIPPED;
    report.note = "the core operation has no named input tensors";
    log::warn("autotune: not writing {}: {}; the tuning result stands", path.string(), report.note);
    return report;
  }
  Result<std::string> key = key_of(entry);
  if (!key.ok()) return key.error();
  // The same graph as an entry that names the outputs too (as earlier
  // tunekit versions wrote it) is this key's entry as well.
  json with_outputs = entry;
  with_outputs["tensors"] = internal::as_stored(tensors_json(*query, true));
  Result<std::string> full_key = key_of(with_outputs);
  if (!full_key.ok()) return full_key.error();

  std::string unreadable;  // why the current file is moved aside: it is not JSON
  auto merge = [&](const std::optional<std::string>& current) -> Result<store::UpdatePlan> {
    store::UpdatePlan plan;
    json document{{"version", kOverrideFileVersion}, {"engine_overrides", json::array()}};
    if (current && !storage.delete_all_existing_content) {
      Result<json> stored = detail::parse_json_text(*current, path.string());
      if (stored.ok()) {
        TUNEKIT_RETURN_IF_ERROR(check_appendable(path, *stored));
        document = std::move(stored).value();
      } else {
        unreadable = stored.error().message();
        plan.move_aside = true;
        plan.overwrite_if_move_fails = true;  // the fresh result takes priority (spec 6.5)
      }
    }
    // Replace-on-match: the first entry with the key takes the new one's
    // place, others with it go; malformed entries stay as they are.
    json merged = json::array();
    json& entries = document["engine_overrides"];
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Result<OverrideEntry> old = detail::parse_override_entry(entries[i], i, false);
      if (!old.ok()) {
        report.malformed.push_back({i, old.error().message()});
        merged.push_back(std::move(entries[i]));
        continue;
      }
      const std::string old_key = detail::writer_match_key(*old);
      if (old_key != *key && old_key != *full_key) {
        merged.push_back(std::move(entries[i]));
      } else if (!report.replaced) {
        merged.push_back(entry);
        report.replaced = true;
      }
    }
    if (!report.replaced) merged.push_back(entry);
    report.entries = merged.size();
    document["version"] = kOverrideFileVersion;
    document["engine_overrides"] = std::move(merged);
    plan.contents = internal::json_text(document, 2) + "\n";
    return plan;
  };
  store::LockedUpdateOptions update;
  update.lock_timeout = options.lock_timeout;
  update.log_prefix = "autotune:";
  update.unix_seconds = now;
  update.move_aside = options.move_aside;
  Result<store::LockedUpdateOutcome> outcome = store::update_file_locked(path, merge, update);
  if (!outcome.ok()) return outcome.error();

  for (const OverrideEntryProblem& problem : report.malformed) {
    log::warn("autotune: {}: {} (kept as it is; never matched)", path.string(), describe(problem));
  }
  if (outcome->moved_aside) {
    report.moved_aside = outcome->moved_aside;
    report.note = fmt::format("the unreadable file was moved to {}", outcome->moved_aside->string());
    log::error("autotune: {} could not be read ({}); moved it to {} and writing a fresh file", path.string(), unreadable,
               outcome->moved_aside->string());
  } else if (!unreadable.empty()) {
    report.note = "the unreadable file was overwritten";
    log::warn("autotune: {} could not be read ({}) nor moved aside ({}); overwriting it with the new result",
              path.string(), unreadable, outcome->move_aside_error.message());
  }
  log::info("autotune: wrote '{}' for {} to {} ({} entries{})", winner.engine_name, query->op, path.string(),
            report.entries, report.replaced ? ", replaced the entry with the same key" : "");
  return report;
}

Result<std::size_t> merge_override_files(const std::vector<std::filesystem::path>& inputs,
                                         const std::filesystem::path& output) {
  struct Winner {
    std::size_t file;
    std::size_t index;
    json entry;
  };
  std::map<std::string, Winner> winners;
  for (std::size_t f = 0; f < inputs.size(); ++f) {
    Result<std::string> text = store::read_file(inputs[f]);
    if (!text.ok()) return Error(ErrorCode::INVALID_VALUE, text.error().message());  // a bad input, not the output
    Result<json> document = detail::parse_json_text(*text, inputs[f].string());
    if (!document.ok()) return document.error();
    if (!document->is_object() || detail::override_file_version(*document) != 2) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: not a version-2 override file", inputs[f].string()));
    }
    auto entries = document->find("engine_overrides");
    if (entries == document->end() || !entries->is_array()) {
      return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: engine_overrides: expected an array", inputs[f].string()));
    }
    for (std::size_t i = 0; i < entries->size(); ++i) {
      Result<OverrideEntry> e = detail::parse_override_entry((*entries)[i], i, false);
      if (!e.ok()) {
        log::warn("overrides: {}: entry {}: {} (not merged)", inputs[f].string(), i, e.error().message());
        continue;
      }
      winners.try_emplace(detail::writer_match_key(*e), Winner{f, i, (*entries)[i]});  // the first one stays
    }
  }
  std::vector<const Winner*> ordered;
  for (const auto& [key, winner] : winners) ordered.push_back(&winner);
  std::sort(ordered.begin(), ordered.end(), [](const Winner* a, const Winner* b) {
    return a->file != b->file ? a->file < b->file : a->index < b->index;
  });
  json out{{"version", kOverrideFileVersion}, {"engine_overrides", json::array()}};
  for (const Winner* w : ordered) out["engine_overrides"].push_back(w->entry);

  // The inputs are read whole and the output replaced whole: what is there is not merged.
  const std::string contents = internal::json_text(out, 2) + "\n";
  store::LockedUpdateOptions update;
  update.log_prefix = "overrides:";
  Result<store::LockedUpdateOutcome> written = store::update_file_locked(
      output, [&](const std::optional<std::string>&) -> Result<store::UpdatePlan> { return store::UpdatePlan{contents}; },
      update);
  if (!written.ok()) return written.error();
  return ordered.size();
}

}  // namespace tunekit::graph
