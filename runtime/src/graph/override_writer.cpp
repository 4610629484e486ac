// The override-file writer: the winner's entry with its metadata and
// validators, then lock, re-read, merge (replace-on-match or delete all),
// corrupt-file handling and atomic replace; and the merge of several files.
#include "tunekit/graph/override_writer.hpp"

#include <fmt/format.h>

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "override_json.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/graph/override_query.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/corrupt_file.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::graph {
namespace {

using nlohmann::json;

json entry_json(const OverrideQuery& query, const AutotuneResult& winner, const OverrideWriteContext& context,
                std::int64_t now) {
  json entry;
  entry["op"] = query.op;
  entry["engine_name"] = winner.engine_name;
  if (!query.criteria.empty()) entry["criteria"] = query.criteria;
  json tensors = json::array();
  for (const OverrideQueryTensor& t : query.tensors) {
    json tensor{{"tensor_id", t.tensor_id}, {"dim", t.dims}};
    if (!t.strides.empty()) tensor["stride"] = t.strides;
    tensors.push_back(std::move(tensor));
  }
  entry["tensors"] = std::move(tensors);

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
  if (winner.strategy_used == AutotuneStrategy::RUN_UNTIL_STABLE) metadata["converged"] = winner.converged;
  metadata["timestamp"] = iso8601_utc(now);
  if (!winner.knob_settings.empty()) {
    json knobs = json::array();
    for (const KnobSetting& knob : canonical_knob_settings(winner.knob_settings)) knobs.push_back(detail::knob_to_json(knob));
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

Error io_error(const std::string& message) {
  log::error("autotune: {}", message);
  return {ErrorCode::IO_ERROR, message};
}

Error refuse(const std::filesystem::path& path, const std::string& why) {
  const std::string message = fmt::format(
      "autotune: refusing to append to {}: {}; appending needs a version-2 override file (set "
      "delete_all_existing_content to replace it); nothing was written",
      path.string(), why);
  log::error("{}", message);
  return {ErrorCode::INVALID_VALUE, message};
}

Error make_parent(const std::filesystem::path& path) {
  if (!path.has_parent_path()) return Error::ok();
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return io_error(fmt::format("cannot create folder {} for {}: {}", path.parent_path().string(), path.string(), ec.message()));
  return Error::ok();
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
  if (!query.ok() || query->tensors.empty()) {
    report.status = OverrideWriteReport::Status::SKIPPED;
    report.note = "the core operation has no named tensor ids";
    log::warn("autotune: not writing {}: {}; the tuning result stands", path.string(), report.note);
    return report;
  }
  json entry = entry_json(*query, winner, context, now);
  Result<OverrideEntry> parsed_entry = detail::parse_override_entry(entry, 0, false);
  if (!parsed_entry.ok()) {
    return Error(ErrorCode::INTERNAL, "autotune: the new override entry does not read back: " + parsed_entry.error().message());
  }
  const std::string key = detail::writer_match_key(*parsed_entry);

  TUNEKIT_RETURN_IF_ERROR(make_parent(path));
  Result<store::FileLock> lock = store::FileLock::acquire(path, options.lock_timeout, store::LockMode::EXCLUSIVE);
  if (!lock.ok()) return io_error(lock.error().message());
  Result<std::optional<std::string>> existing = store::read_file_if_exists(path);
  if (!existing.ok()) return io_error(existing.error().message());

  json document{{"version", kOverrideFileVersion}, {"engine_overrides", json::array()}};
  std::string corrupt;  // why the existing file must be moved aside
  if (existing->has_value() && !storage.delete_all_existing_content) {
    Result<json> stored = detail::parse_json_text(**existing, path.string());
    if (!stored.ok()) {
      corrupt = stored.error().message();
    } else if (!stored->is_object()) {
      return refuse(path, "it is not a JSON object");
    } else if (const std::optional<int> version = detail::override_file_version(*stored); version != 2) {
      return refuse(path, stored->contains("version")
                              ? fmt::format("its version {} is not 2", (*stored)["version"].dump())
                              : std::string("it has no version key (a version-1 file with positional tensors)"));
    } else if (auto entries = stored->find("engine_overrides"); entries == stored->end()) {
      return refuse(path, "it has no engine_overrides array (not an override file)");
    } else if (!entries->is_array()) {
      corrupt = fmt::format("{}: engine_overrides: expected an array", path.string());
    } else {
      json kept = json::array();
      for (std::size_t i = 0; i < entries->size(); ++i) {
        if (detail::parse_override_entry((*entries)[i], i, false).ok()) {
          kept.push_back((*entries)[i]);
        } else {
          ++report.dropped;
        }
      }
      if (report.dropped > 0) corrupt = fmt::format("{}: {} malformed entries", path.string(), report.dropped);
      document = std::move(stored).value();
      document["engine_overrides"] = std::move(kept);
    }
  }

  // Replace-on-match: the first entry with the key takes the new one's place; others with it go.
  json merged = json::array();
  for (json& old : document["engine_overrides"]) {
    Result<OverrideEntry> e = detail::parse_override_entry(old, 0, false);
    if (e.ok() && detail::writer_match_key(*e) == key) {
      if (!report.replaced) merged.push_back(entry);
      report.replaced = true;
    } else {
      merged.push_back(std::move(old));
    }
  }
  if (!report.replaced) merged.push_back(std::move(entry));
  report.entries = merged.size();
  document["version"] = kOverrideFileVersion;
  document["engine_overrides"] = std::move(merged);

  if (!corrupt.empty()) {
    auto move = options.move_aside ? options.move_aside
                                   : [](const std::filesystem::path& p, std::int64_t s) { return store::move_aside_corrupt(p, s); };
    Result<std::filesystem::path> moved = move(path, now);
    if (moved.ok()) {
      report.moved_aside = *moved;
      report.note = fmt::format("the unreadable file was moved to {}", moved->string());
      log::error("autotune: {} could not be read ({}); moved it to {} and writing a fresh file", path.string(), corrupt,
                 moved->string());
    } else {
      report.note = "the unreadable file was overwritten";
      log::warn("autotune: {} could not be read ({}) nor moved aside ({}); overwriting it with the new result",
                path.string(), corrupt, moved.error().message());
    }
  }
  if (Error written = store::write_file_atomically(path, document.dump(2) + "\n"); written.is_bad()) {
    return io_error(written.message());
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
    if (!text.ok()) return text.error();
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
      const std::string key = detail::writer_match_key(*e);
      auto found = winners.find(key);
      if (found == winners.end() || found->second.file == f) winners[key] = Winner{f, i, (*entries)[i]};
    }
  }
  std::vector<const Winner*> ordered;
  for (const auto& [key, winner] : winners) ordered.push_back(&winner);
  std::sort(ordered.begin(), ordered.end(), [](const Winner* a, const Winner* b) {
    return a->file != b->file ? a->file < b->file : a->index < b->index;
  });
  json out{{"version", kOverrideFileVersion}, {"engine_overrides", json::array()}};
  for (const Winner* w : ordered) out["engine_overrides"].push_back(w->entry);

  TUNEKIT_RETURN_IF_ERROR(make_parent(output));
  Result<store::FileLock> lock = store::FileLock::acquire(output, std::chrono::milliseconds(30000));
  if (!lock.ok()) return lock.error();
  TUNEKIT_RETURN_IF_ERROR(store::write_file_atomically(output, out.dump(2) + "\n"));
  return ordered.size();
}

}  // namespace tunekit::graph
