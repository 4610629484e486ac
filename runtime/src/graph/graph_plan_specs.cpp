// The plan-spec path: engine discovery and every add_engine* call. Specs are
// validated and stored; nothing is compiled until autotune().
#include <fmt/format.h>

#include <set>

#include "graph_impl.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/graph/engine_sweep.hpp"

namespace tunekit::graph {
namespace {

// Preconditions shared by every add_engine* call.
Error can_add(const Graph::Impl& g, std::string_view call) {
  TUNEKIT_RETURN_IF_ERROR(g.require_built(call));
  if (!g.plans.empty()) {
    return {ErrorCode::BAD_STATE,
            fmt::format("{}: the graph already has execution plans (compiled-plan path); the plan-spec path "
                        "cannot be used on the same graph",
                        call)};
  }
  return Error::ok();
}

// Validates and normalizes settings for engine: global.benchmarking is
// stripped with a warning; an unknown knob, a knob set twice or a bad value
// is INVALID_VALUE naming the engine and the knob.
Result<std::vector<KnobSetting>> normalize_settings(const Engine& engine, const std::vector<KnobSetting>& settings,
                                                    std::string_view call) {
  const EngineDescriptor& d = engine.descriptor();
  std::vector<KnobSetting> normalized;
  std::set<std::string> set_ids;
  for (const auto& setting : settings) {
    if (setting.knob_id == kBenchmarkingKnob) {
      log::warn("{}: engine '{}' (id {}): knob '{}' stripped; autotune() sets it in EXHAUSTIVE mode", call, d.name,
                d.id, setting.knob_id);
      continue;
    }
    const Knob* knob = d.find_knob(setting.knob_id);
    if (!knob) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("{}: engine '{}' (id {}) has no knob '{}'", call, d.name, d.id, setting.knob_id));
    }
    if (!set_ids.insert(setting.knob_id).second) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("{}: engine '{}' (id {}): knob '{}' is set twice", call, d.name, d.id, setting.knob_id));
    }
    Result<KnobValue> value = normalize_knob_value(*knob, setting.value);
    if (!value.ok()) {
      return Error(ErrorCode::INVALID_VALUE,
                   fmt::format("{}: engine '{}' (id {}): {}", call, d.name, d.id, value.error().message()));
    }
    normalized.push_back({setting.knob_id, std::move(value).value()});
  }
  return canonical_knob_settings(std::move(normalized));
}

// Validates, estimates and stores one spec of a registered engine.
Error add_spec(Graph::Impl& g, const Engine& engine, const std::vector<KnobSetting>& settings, std::string_view call) {
  Result<std::vector<KnobSetting>> normalized = normalize_settings(engine, settings, call);
  if (!normalized.ok()) return normalized.error();
  const KnobValues knobs = engine.descriptor().resolve(*normalized);
  Result<std::int64_t> estimate = detail::estimate_workspace(engine, g.operation_graph, knobs);
  if (!estimate.ok()) {
    return {estimate.error().code(), fmt::format("{}: {}", call, estimate.error().message())};
  }
  PlanSpec spec{engine.descriptor().id, std::move(normalized).value(), *estimate};
  if (!g.specs.add(spec)) {
    log::debug("{}: engine '{}' with {} is already a plan spec", call, engine.descriptor().name,
               describe_knob_settings(spec.knob_settings));
  }
  return Error::ok();
}

// add_spec for one variant of a batch: a knob combination the engine
// refuses for this graph (NOT_SUPPORTED, such as a knob with nothing to
// choose on this graph) is skipped with its reason, so that a sweep over an
// engine's knobs keeps its other variants; any other error stops the batch.
Error add_variant_spec(Graph::Impl& g, const Engine& engine, const std::vector<KnobSetting>& settings,
                       const std::string& call) {
  const Error added = add_spec(g, engine, settings, call);
  if (added.code() != ErrorCode::NOT_SUPPORTED) return added;
  log::info("{} (skipped)", added.message());
  return Error::ok();
}

std::vector<KnobSetting> to_settings(const std::map<std::string, KnobValue>& map) {
  std::vector<KnobSetting> settings;
  for (const auto& [id, value] : map) settings.push_back({id, value});
  return settings;
}

}  // namespace

Error Graph::get_engine_configs(std::vector<EngineConfigInfo>& configs, const std::vector<HeuristicMode>& modes) const {
  const Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(g.require_built("get_engine_configs"));
  configs.clear();
  for (const Engine* engine : g.ordered_engines(modes)) {
    const EngineDescriptor& d = engine->descriptor();
    Result<std::int64_t> estimate = detail::estimate_workspace(*engine, g.operation_graph, d.resolve({}));
    if (!estimate.ok()) {
      log::warn("get_engine_configs: engine '{}' (id {}) left out: {}", d.name, d.id, estimate.error().message());
      continue;
    }
    configs.push_back(EngineConfigInfo{d.id, d.name, d.knobs, d.supports_exhaustive(), *estimate});
  }
  return Error::ok();
}

Error Graph::add_engine_configs(const std::vector<EngineConfigInfo>& configs) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_add(g, "add_engine_configs"));
  if (configs.empty()) return {ErrorCode::INVALID_VALUE, "add_engine_configs: no engine configs given"};
  // Ids are trusted here (they come from get_engine_configs); an unknown id fails in autotune().
  for (const auto& config : configs) g.specs.add(PlanSpec{config.engine_id, {}, config.estimated_workspace_size});
  return Error::ok();
}

Error Graph::add_engines(const std::vector<std::int64_t>& engine_ids) {
  TUNEKIT_RETURN_IF_ERROR(can_add(*impl_, "add_engines"));
  if (engine_ids.empty()) return {ErrorCode::INVALID_VALUE, "add_engines: no engine ids given"};
  for (std::int64_t id : engine_ids) TUNEKIT_RETURN_IF_ERROR(add_engine(id));
  return Error::ok();
}

Error Graph::add_engine(std::int64_t engine_id, const std::vector<KnobSetting>& knob_settings) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_add(g, "add_engine"));
  const Engine* engine = g.registry->find(engine_id);
  if (!engine) return {ErrorCode::INVALID_VALUE, fmt::format("add_engine: engine id {} is not registered", engine_id)};
  return add_spec(g, *engine, knob_settings, "add_engine");
}

Error Graph::add_engine_variants(const std::vector<EngineVariant>& variants) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_add(g, "add_engine_variants"));
  if (variants.empty()) return {ErrorCode::INVALID_VALUE, "add_engine_variants: no variants given"};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const EngineVariant& variant = variants[i];
    const Engine* engine = g.registry->find(variant.engine_id);
    if (!engine) {
      log::warn("add_engine_variants: variant {} skipped: engine id {} is not registered", i, variant.engine_id);
      continue;
    }
    // Fail fast: variants stored before this one stay stored.
    TUNEKIT_RETURN_IF_ERROR(add_variant_spec(g, *engine, to_settings(variant.knob_settings),
                                             fmt::format("add_engine_variants: variant {}", i)));
  }
  return Error::ok();
}

Error Graph::check_engine_variant(const EngineVariant& variant) const {
  const Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(g.require_built("check_engine_variant"));
  const Engine* engine = g.registry->find(variant.engine_id);
  if (!engine) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("check_engine_variant: engine id {} is not registered", variant.engine_id)};
  }
  Result<std::vector<KnobSetting>> normalized =
      normalize_settings(*engine, to_settings(variant.knob_settings), "check_engine_variant");
  if (!normalized.ok()) return normalized.error();
  Result<std::int64_t> estimate =
      detail::estimate_workspace(*engine, g.operation_graph, engine->descriptor().resolve(*normalized));
  return estimate.ok() ? Error::ok() : estimate.error();
}

Error Graph::add_engine_sweep(const std::vector<EngineSweepSpec>& specs) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_add(g, "add_engine_sweep"));
  if (specs.empty()) return {ErrorCode::INVALID_VALUE, "add_engine_sweep: no sweep specs given"};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const Engine* engine = g.registry->find(specs[i].engine_id);
    if (!engine) {
      log::warn("add_engine_sweep: spec {} skipped: engine id {} is not registered", i, specs[i].engine_id);
      continue;
    }
    Result<SweepExpansion> expansion = expand_sweep(specs[i]);
    if (!expansion.ok()) {
      return {expansion.error().code(), fmt::format("add_engine_sweep: spec {}: {}", i, expansion.error().message())};
    }
    for (const auto& warning : expansion->warnings) log::warn("add_engine_sweep: spec {}: {}", i, warning);
    for (std::size_t c = 0; c < expansion->combinations.size(); ++c) {
      TUNEKIT_RETURN_IF_ERROR(add_variant_spec(g, *engine, expansion->combinations[c],
                                               fmt::format("add_engine_sweep: spec {} combination {}", i, c)));
    }
  }
  return Error::ok();
}

Error Graph::add_all_engines(const std::vector<HeuristicMode>& modes) {
  TUNEKIT_RETURN_IF_ERROR(can_add(*impl_, "add_all_engines"));
  std::vector<EngineConfigInfo> configs;
  TUNEKIT_RETURN_IF_ERROR(get_engine_configs(configs, modes));
  if (configs.empty()) return {ErrorCode::NOT_SUPPORTED, "add_all_engines: no engine applies to this graph"};
  return add_engine_configs(configs);
}

Error Graph::get_estimated_max_workspace_size(std::int64_t& max_size) const {
  std::optional<std::int64_t> largest = impl_->specs.max_estimated_workspace();
  if (!largest) return {ErrorCode::BAD_STATE, "get_estimated_max_workspace_size: no plan specs have been added"};
  max_size = *largest;
  return Error::ok();
}

const std::vector<PlanSpec>& Graph::plan_specs() const noexcept { return impl_->specs.specs(); }

}  // namespace tunekit::graph
