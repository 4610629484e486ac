// The config selection policy inside create_execution_plans(): the matched
// engine (an exact or wildcard entry, else the nearest tuned shape within
// the environment's limit) goes first with its stored knobs; an engine that no longer applies
// or knobs that no longer validate leave the heuristic order as it is, with
// the reason logged.
#include <fmt/format.h>

#include <algorithm>

#include "graph_impl.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/graph/override_policy.hpp"

namespace tunekit::graph {

std::optional<Graph::Impl::OverrideSelection> Graph::Impl::override_selection(
    const std::vector<const Engine*>& applicable) const {
  std::shared_ptr<const OverrideIndex> index = OverridePolicy::process().refresh_from_environment();
  if (!index) return std::nullopt;
  Result<OverrideQuery> query = make_override_query(operation_graph);
  if (!query.ok()) return std::nullopt;
  OverrideLookupContext context;
  context.registry = registry.get();
  context.device_signature = device->signature();
  context.nearest_limit = nearest_shape_limit_from_environment();
  const std::optional<OverrideMatch> match = index->lookup(*query, context);
  if (!match) {
    log::debug("overrides: graph '{}': no entry matches its {} operation", name, query->op);
    return std::nullopt;
  }
  const std::string where =
      match->nearest_distance
          ? fmt::format("entry {} of {}, the nearest tuned shape (distance {:.3g})", match->entry->index, match->file,
                        *match->nearest_distance)
          : fmt::format("entry {} of {}", match->entry->index, match->file);
  const Engine* engine = registry->find(match->engine_id);
  if (!engine) return std::nullopt;  // lookup resolved it in this registry
  const EngineDescriptor& d = engine->descriptor();
  auto fall_back = [&](const std::string& why) {
    log::warn("overrides: graph '{}': {} selects engine '{}' (id {}), but {}; using the heuristic order", name, where,
              d.name, d.id, why);
    return std::nullopt;
  };
  if (std::find(applicable.begin(), applicable.end(), engine) == applicable.end()) {
    Error support;
    try {
      support = engine->check_applicable(operation_graph, *device);
    } catch (...) {
      support = Error(ErrorCode::NOT_SUPPORTED, "its applicability check threw");
    }
    return fall_back(fmt::format("it no longer applies to this graph ({})",
                                 support.is_bad() ? support.message() : "not in the heuristic list"));
  }
  std::vector<KnobSetting> settings;
  for (const KnobSetting& stored : match->entry->knobs) {
    const Knob* knob = d.find_knob(stored.knob_id);
    if (!knob) return fall_back(fmt::format("its stored knob '{}' is no longer a knob of the engine", stored.knob_id));
    Result<KnobValue> value = normalize_knob_value(*knob, stored.value);
    if (!value.ok()) return fall_back(fmt::format("its stored knobs no longer validate: {}", value.error().message()));
    settings.push_back({stored.knob_id, std::move(value).value()});
  }
  settings = canonical_knob_settings(std::move(settings));
  log::info("overrides: graph '{}': {}{} puts engine '{}' (id {}) first with {}", name, where,
            match->exact ? " (exact)" : match->nearest_distance ? "" : " (wildcard)", d.name, d.id,
            describe_knob_settings(settings));
  return OverrideSelection{engine, std::move(settings)};
}

}  // namespace tunekit::graph
