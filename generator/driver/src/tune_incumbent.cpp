#include "tune_incumbent.hpp"

#include <fmt/format.h>

#include "tunekit/graph/override_index.hpp"
#include "tunekit/measure/comparison.hpp"

namespace tunekit::cli {
namespace {

// Every knob of the engine with its value: the defaults overridden by `settings`.
std::optional<graph::KnobValues> resolve(const graph::EngineDescriptor& d, const std::vector<graph::KnobSetting>& settings) {
  std::vector<graph::KnobSetting> normalized;
  for (const graph::KnobSetting& s : settings) {
    const graph::Knob* knob = d.find_knob(s.knob_id);
    if (knob == nullptr) return std::nullopt;
    Result<graph::KnobValue> value = graph::normalize_knob_value(*knob, s.value);
    if (!value.ok()) return std::nullopt;
    normalized.push_back({s.knob_id, std::move(value).value()});
  }
  return d.resolve(graph::canonical_knob_settings(std::move(normalized)));
}

}  // namespace

std::optional<StoredWinner> find_stored_winner(const std::filesystem::path& file, const graph::Graph& graph,
                                               const graph::Handle& handle) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  Result<graph::OverrideFile> read = graph::read_override_file(file);
  if (!read.ok()) return std::nullopt;
  Result<graph::OverrideQuery> query = graph::make_override_query(graph.operation_graph());
  if (!query.ok()) return std::nullopt;
  std::vector<graph::OverrideFile> files;
  files.push_back(std::move(read).value());
  const graph::OverrideIndex index(std::move(files));
  graph::OverrideLookupContext context;
  context.registry = &handle.registry();
  context.device_signature = handle.device().signature();
  const std::optional<graph::OverrideMatch> match = index.lookup(*query, context);
  if (!match || !match->exact) return std::nullopt;
  const graph::Engine* engine = handle.registry().find(match->engine_id);
  if (engine == nullptr) return std::nullopt;
  std::optional<graph::KnobValues> knobs = resolve(engine->descriptor(), match->entry->knobs);
  if (!knobs) return std::nullopt;
  return StoredWinner{match->engine_id, engine->descriptor().name, std::move(*knobs),
                      fmt::format("entry {} of {}", match->entry->index, match->file),
                      !match->entry->metadata || match->entry->metadata->complete};
}

StoredAgainstFastest find_stored_result(const StoredWinner& stored, const std::vector<graph::AutotuneResult>& results,
                                        const graph::Handle& handle, const measure::ComparisonConfig& comparison) {
  StoredAgainstFastest found;
  if (!results.empty() && results.front().succeeded) found.fastest = &results.front();
  const graph::Engine* engine = handle.registry().find(stored.engine_id);
  for (const graph::AutotuneResult& r : results) {
    if (engine == nullptr || r.engine_id != stored.engine_id) continue;
    if (resolve(engine->descriptor(), r.knob_settings) == stored.knobs) {
      found.stored = &r;
      break;
    }
  }
  if (found.stored && found.stored->succeeded && found.fastest && found.fastest != found.stored) {
    found.comparison = measure::compare_times(found.fastest->samples_ms, found.stored->samples_ms, comparison);
  }
  return found;
}

KeepDecision decide_keep(const StoredWinner& stored, const std::vector<graph::AutotuneResult>& results,
                         const graph::Handle& handle, const graph::AutotuneConfig& config) {
  const measure::ComparisonConfig comparison = graph::to_comparison_config(config);
  const StoredAgainstFastest found = find_stored_result(stored, results, handle, comparison);
  const std::string name = fmt::format("the stored winner '{}' ({})", stored.engine_name, stored.where);
  if (found.stored == nullptr) return {false, name + " was not among the candidates: replaced"};
  const graph::AutotuneResult& incumbent = *found.stored;
  const std::string knobs = graph::describe_knob_settings(incumbent.knob_settings);
  if (!incumbent.succeeded) {
    return {false, fmt::format("{} {} failed: replaced ({})", name, knobs, incumbent.error_message)};
  }
  if (!found.comparison) return {true, fmt::format("{} {} is still the fastest", name, knobs), &incumbent};
  const graph::AutotuneResult& fastest = *found.fastest;
  const measure::Comparison& c = *found.comparison;
  const std::string figures =
      fmt::format("'{}' {} against it: {}", fastest.engine_name, graph::describe_knob_settings(fastest.knob_settings),
                  measure::describe(c, comparison));
  if (c.verdict == measure::Verdict::FASTER) return {false, fmt::format("{} {} replaced: {}", name, knobs, figures)};
  return {true, fmt::format("{} {} kept (--keep-unless-faster): {}", name, knobs, figures), &incumbent};
}

}  // namespace tunekit::cli
