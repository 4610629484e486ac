// The compiled-plan path (create, check support, build, plan-indexed access
// with stable indices), the deselect_* criteria, and execute().
#include <fmt/format.h>

#include <algorithm>

#include "graph_impl.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph {
namespace {

Error can_create(const Graph::Impl& g, std::string_view call) {
  TUNEKIT_RETURN_IF_ERROR(g.require_built(call));
  if (!g.specs.empty()) {
    return {ErrorCode::BAD_STATE,
            fmt::format("{}: the graph already has plan specs (plan-spec path); the compiled-plan path cannot be "
                        "used on the same graph",
                        call)};
  }
  return Error::ok();
}

Error check_index(const Graph::Impl& g, std::int64_t index, std::string_view call) {
  if (index < 0 || index >= static_cast<std::int64_t>(g.plans.size())) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("{}: plan index {} is out of range (the graph has {} plans)", call, index, g.plans.size())};
  }
  return Error::ok();
}

Error check_runnable(const detail::ExecutionPlan& plan, std::int64_t index, std::string_view call) {
  if (!plan.barred.empty()) {
    return {ErrorCode::INVALID_VALUE, fmt::format("{}: plan {} ('{}') is excluded: {}", call, index, plan.name(), plan.barred)};
  }
  if (!plan.compiled()) {
    const std::string why = plan.failure.empty() ? "it has not been built" : plan.failure;
    return {ErrorCode::BAD_STATE, fmt::format("{}: plan {} ('{}') cannot run: {}", call, index, plan.name(), why)};
  }
  return Error::ok();
}

}  // namespace

Graph& Graph::deselect_workspace_greater_than(std::int64_t workspace) {
  impl_->deselection.workspace_limit = workspace;
  return *this;
}

Graph& Graph::deselect_engines(const std::vector<std::string>& engine_names) {
  impl_->deselection.names.insert(engine_names.begin(), engine_names.end());
  return *this;
}

Graph& Graph::deselect_engines(const std::vector<std::int64_t>& engine_ids) {
  impl_->deselection.ids.insert(engine_ids.begin(), engine_ids.end());
  return *this;
}

Error Graph::create_execution_plans(const std::vector<HeuristicMode>& modes) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_create(g, "create_execution_plans"));
  g.plans.clear();
  g.active_plan.reset();
  g.tuned_plan.reset();
  const std::vector<const Engine*> ordered = g.ordered_engines(modes);
  const std::optional<Impl::OverrideSelection> selected = g.override_selection(ordered);
  auto add = [&](const Engine* engine, std::vector<KnobSetting> settings) {
    const auto estimate = detail::estimate_workspace(*engine, g.operation_graph, engine->descriptor().resolve(settings));
    g.plans.push_back(detail::make_plan(engine, engine->descriptor().id, std::move(settings), estimate.ok() ? *estimate : 0));
  };
  if (selected) add(selected->engine, selected->knob_settings);
  for (const Engine* engine : ordered) {
    if (!selected || engine != selected->engine) add(engine, {});
  }
  if (g.plans.empty()) return {ErrorCode::NOT_SUPPORTED, "create_execution_plans: no engine applies to this graph"};
  return Error::ok();
}

Error Graph::create_execution_plan_ext(std::int64_t engine_id, const std::map<std::string, KnobValue>& knobs) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(can_create(g, "create_execution_plan_ext"));
  const Engine* engine = g.registry->find(engine_id);
  if (!engine) {
    return {ErrorCode::INVALID_VALUE, fmt::format("create_execution_plan_ext: engine id {} is not registered", engine_id)};
  }
  const EngineDescriptor& d = engine->descriptor();
  std::vector<KnobSetting> settings;
  for (const auto& [id, value] : knobs) {
    const Knob* knob = d.find_knob(id);
    if (!knob) {
      return {ErrorCode::INVALID_VALUE,
              fmt::format("create_execution_plan_ext: engine '{}' (id {}) has no knob '{}'", d.name, d.id, id)};
    }
    Result<KnobValue> normalized = normalize_knob_value(*knob, value);
    if (!normalized.ok()) {
      return {ErrorCode::INVALID_VALUE, fmt::format("create_execution_plan_ext: engine '{}' (id {}): {}", d.name, d.id,
                                                    normalized.error().message())};
    }
    settings.push_back({id, std::move(normalized).value()});
  }
  const auto estimate = detail::estimate_workspace(*engine, g.operation_graph, d.resolve(settings));
  g.plans.clear();
  g.active_plan.reset();
  g.tuned_plan.reset();
  g.plans.push_back(detail::make_plan(engine, engine_id, std::move(settings), estimate.ok() ? *estimate : 0));
  return Error::ok();
}

Error Graph::check_support() {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(g.require_built("check_support"));
  if (g.plans.empty()) return {ErrorCode::BAD_STATE, "check_support: no execution plans; call create_execution_plans() first"};
  std::size_t supported = 0;
  for (auto& plan : g.plans) {
    if (plan.state == detail::PlanState::COMPILED) {
      ++supported;
    } else if (detail::check_plan_support(plan, g.operation_graph, *g.device).is_good()) {
      ++supported;
    }
  }
  if (supported == 0) return {ErrorCode::NOT_SUPPORTED, "check_support: no execution plan supports this graph"};
  return Error::ok();
}

Error Graph::build_plans(BuildPlanPolicy policy) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(g.require_built("build_plans"));
  if (g.plans.empty()) return {ErrorCode::BAD_STATE, "build_plans: no execution plans; call create_execution_plans() first"};
  g.active_plan.reset();
  std::string first_failure;
  for (std::size_t i = 0; i < g.plans.size(); ++i) {
    detail::ExecutionPlan& plan = g.plans[i];
    if (auto reason = g.deselection.engine_reason(plan.engine_id, plan.engine_name)) {
      plan.barred = *reason;
      continue;
    }
    if (plan.state == detail::PlanState::UNSUPPORTED) {
      if (first_failure.empty()) first_failure = plan.failure;
      continue;
    }
    if (policy == BuildPlanPolicy::HEURISTICS_CHOICE && g.active_plan) break;
    if (!plan.compiled()) {
      if (Error error = detail::compile_plan(plan, g.operation_graph, *g.device); error.is_bad()) {
        log::debug("build_plans: plan {} ('{}'): {}", i, plan.name(), plan.failure);
        if (first_failure.empty()) first_failure = plan.failure;
        continue;
      }
    }
    if (auto reason = g.deselection.workspace_reason(plan.workspace_size)) {
      plan.barred = *reason;
      continue;
    }
    if (!g.active_plan) g.active_plan = i;
  }
  if (!g.active_plan) {
    return {ErrorCode::COMPILE_FAILED,
            fmt::format("build_plans: no plan could be built{}", first_failure.empty() ? "" : " (first failure: " + first_failure + ")")};
  }
  return Error::ok();
}

Error Graph::build(Handle* handle, const std::vector<HeuristicMode>& modes) {
  TUNEKIT_RETURN_IF_ERROR(build_operation_graph(handle));
  TUNEKIT_RETURN_IF_ERROR(create_execution_plans(modes));
  TUNEKIT_RETURN_IF_ERROR(check_support());
  return build_plans(BuildPlanPolicy::HEURISTICS_CHOICE);
}

std::int64_t Graph::get_execution_plan_count() const noexcept { return static_cast<std::int64_t>(impl_->plans.size()); }

Error Graph::execute_plan_at_index(Handle* handle, const VariantPack& variant_pack, void* workspace, std::int64_t index) {
  Impl& g = *impl_;
  if (!handle) return {ErrorCode::INVALID_VALUE, "execute_plan_at_index: invalid handle (null)"};
  TUNEKIT_RETURN_IF_ERROR(check_index(g, index, "execute_plan_at_index"));
  detail::ExecutionPlan& plan = g.plans[static_cast<std::size_t>(index)];
  TUNEKIT_RETURN_IF_ERROR(check_runnable(plan, index, "execute_plan_at_index"));
  TUNEKIT_RETURN_IF_ERROR(detail::check_variant_pack(g.operation_graph, variant_pack, "execute_plan_at_index"));
  return detail::execute_plan(plan, variant_pack, workspace, plan.workspace_size, handle->stream());
}

Error Graph::build_plan_at_index(std::int64_t index) {
  Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(check_index(g, index, "build_plan_at_index"));
  detail::ExecutionPlan& plan = g.plans[static_cast<std::size_t>(index)];
  if (!plan.barred.empty()) {
    return {ErrorCode::INVALID_VALUE, fmt::format("build_plan_at_index: plan {} ('{}') is excluded: {}", index, plan.name(), plan.barred)};
  }
  if (!plan.compiled()) {
    if (Error error = detail::compile_plan(plan, g.operation_graph, *g.device); error.is_bad()) {
      return {error.code(), fmt::format("build_plan_at_index: plan {} ('{}'): {}", index, plan.name(), plan.failure)};
    }
  }
  g.tuned_plan.reset();
  g.active_plan = static_cast<std::size_t>(index);
  return Error::ok();
}

Error Graph::get_workspace_size_plan_at_index(std::int64_t index, std::int64_t& size) const {
  const Impl& g = *impl_;
  TUNEKIT_RETURN_IF_ERROR(check_index(g, index, "get_workspace_size_plan_at_index"));
  const detail::ExecutionPlan& plan = g.plans[static_cast<std::size_t>(index)];
  if (!plan.compiled()) {
    return {ErrorCode::BAD_STATE,
            fmt::format("get_workspace_size_plan_at_index: plan {} ('{}') has not been built", index, plan.name())};
  }
  size = plan.workspace_size;
  return Error::ok();
}

std::int64_t Graph::get_workspace_size_plan_at_index(std::int64_t index) const {
  std::int64_t size = -1;
  if (get_workspace_size_plan_at_index(index, size).is_bad()) return -1;
  return size;
}

Error Graph::get_plan_name_at_index(std::int64_t index, std::string& name) const {
  TUNEKIT_RETURN_IF_ERROR(check_index(*impl_, index, "get_plan_name_at_index"));
  name = impl_->plans[static_cast<std::size_t>(index)].name();
  return Error::ok();
}

std::int64_t Graph::get_autotune_workspace_size() const {
  std::int64_t largest = 0;
  for (const auto& plan : impl_->plans) {
    if (plan.compiled() && plan.barred.empty()) largest = std::max(largest, plan.workspace_size);
  }
  return largest;
}

std::int64_t Graph::get_workspace_size() const {
  detail::ExecutionPlan* plan = impl_->selected_plan();
  return plan && plan->compiled() ? plan->workspace_size : 0;
}

Error Graph::execute(Handle* handle, const VariantPack& variant_pack, void* workspace) {
  Impl& g = *impl_;
  if (!handle) return {ErrorCode::INVALID_VALUE, "execute: invalid handle (null)"};
  TUNEKIT_RETURN_IF_ERROR(g.require_built("execute"));
  detail::ExecutionPlan* plan = g.selected_plan();
  if (!plan) {
    return {ErrorCode::BAD_STATE, "execute: no plan is selected; call build_plans(), build_plan_at_index() or autotune() first"};
  }
  if (!plan->barred.empty()) return {ErrorCode::INVALID_VALUE, fmt::format("execute: the selected plan is excluded: {}", plan->barred)};
  TUNEKIT_RETURN_IF_ERROR(detail::check_variant_pack(g.operation_graph, variant_pack, "execute"));
  return detail::execute_plan(*plan, variant_pack, workspace, plan->workspace_size, handle->stream());
}

Error Graph::execute(Handle* handle, const TensorLookup& tensor_lookup, void* workspace) {
  Result<VariantPack> pack = to_variant_pack(tensor_lookup);
  if (!pack.ok()) return pack.error();
  return execute(handle, *pack, workspace);
}

}  // namespace tunekit::graph
