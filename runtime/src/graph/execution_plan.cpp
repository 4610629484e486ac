// Guarded engine calls on execution plans, variant pack checks and the
// deselection criteria.
#include "execution_plan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>

namespace tunekit::graph::detail {
namespace {

std::string what_of(std::exception_ptr thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

}  // namespace

std::string ExecutionPlan::name() const {
  if (knob_settings.empty()) return engine_name;
  return fmt::format("{}[{}]", engine_name, describe_knob_settings(knob_settings));
}

ExecutionPlan make_plan(const Engine* engine, std::int64_t engine_id, std::vector<KnobSetting> settings,
                        std::int64_t estimated_workspace) {
  ExecutionPlan plan;
  plan.engine = engine;
  plan.engine_id = engine_id;
  plan.engine_name = engine ? engine->descriptor().name : fmt::format("unregistered engine {}", engine_id);
  plan.knobs = engine ? engine->descriptor().resolve(settings) : KnobValues{};
  plan.knob_settings = std::move(settings);
  plan.estimated_workspace = estimated_workspace;
  return plan;
}

Error check_plan_support(ExecutionPlan& plan, const OperationGraph& graph, const platform::Device& device) {
  Error error;
  if (!plan.engine) {
    error = Error(ErrorCode::NOT_SUPPORTED, fmt::format("engine id {} is not registered", plan.engine_id));
  } else {
    try {
      error = plan.engine->check_applicable(graph, device);
    } catch (...) {
      error = Error(ErrorCode::NOT_SUPPORTED, fmt::format("applicability check threw: {}", what_of(std::current_exception())));
    }
  }
  if (error.is_bad()) {
    plan.state = PlanState::UNSUPPORTED;
    plan.failure = fmt::format("not supported: {}", error.message());
    return {ErrorCode::NOT_SUPPORTED, plan.failure};
  }
  return Error::ok();
}

Error compile_plan(ExecutionPlan& plan, const OperationGraph& graph, platform::Device& device) {
  plan.kernel.reset();
  plan.workspace_size = -1;
  // Compile time is the engine's own cost (primitive creation, JIT, weight
  // layouts chosen), kept apart from the timed executions.
  const auto start = std::chrono::steady_clock::now();
  struct StopWatch {
    ExecutionPlan& plan;
    std::chrono::steady_clock::time_point start;
    ~StopWatch() {
      plan.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
  } stop_watch{plan, start};
  auto fail = [&](PlanState state, ErrorCode code, std::string text) {
    plan.state = state;
    plan.failure = std::move(text);
    plan.kernel.reset();
    return Error(code, plan.failure);
  };
  if (Error support = check_plan_support(plan, graph, device); support.is_bad()) {
    return fail(PlanState::FAILED_COMPILE, ErrorCode::COMPILE_FAILED, "failed compile: " + support.message());
  }
  try {
    Result<std::unique_ptr<ExecutionKernel>> kernel = plan.engine->compile(graph, plan.knobs, device);
    if (!kernel.ok()) {
      return fail(PlanState::FAILED_COMPILE, ErrorCode::COMPILE_FAILED, "failed compile: " + kernel.error().message());
    }
    if (!*kernel) return fail(PlanState::FAILED_COMPILE, ErrorCode::COMPILE_FAILED, "failed compile: no kernel returned");
    plan.kernel = std::move(kernel).value();
  } catch (...) {
    return fail(PlanState::FAILED_COMPILE, ErrorCode::COMPILE_FAILED,
                "failed compile: the engine threw: " + what_of(std::current_exception()));
  }
  try {
    if (Error finalized = plan.kernel->finalize(); finalized.is_bad()) {
      return fail(PlanState::FAILED_FINALIZE, ErrorCode::COMPILE_FAILED, "failed finalize: " + finalized.message());
    }
    const std::int64_t workspace = plan.kernel->workspace_size();
    if (workspace < 0) {
      return fail(PlanState::FAILED_FINALIZE, ErrorCode::COMPILE_FAILED,
                  fmt::format("failed finalize: negative workspace size {}", workspace));
    }
    plan.workspace_size = workspace;
  } catch (...) {
    return fail(PlanState::FAILED_FINALIZE, ErrorCode::COMPILE_FAILED,
                "failed finalize: the engine threw: " + what_of(std::current_exception()));
  }
  plan.state = PlanState::COMPILED;
  plan.failure.clear();
  return Error::ok();
}

Error execute_plan(ExecutionPlan& plan, const VariantPack& variant_pack, void* workspace, std::int64_t workspace_size,
                   platform::Stream& stream) {
  if (!plan.compiled() || !plan.kernel) {
    return {ErrorCode::BAD_STATE, fmt::format("plan '{}' is not built", plan.name())};
  }
  if (plan.workspace_size > 0 && workspace == nullptr) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("plan '{}' needs {} bytes of workspace but the workspace is null", plan.name(), plan.workspace_size)};
  }
  try {
    return plan.kernel->execute(ExecutionArguments{variant_pack, workspace, workspace_size, stream});
  } catch (...) {
    return {ErrorCode::EXECUTION_FAILED,
            fmt::format("engine '{}' threw during execution: {}", plan.engine_name, what_of(std::current_exception()))};
  }
}

Result<std::int64_t> estimate_workspace(const Engine& engine, const OperationGraph& graph, const KnobValues& knobs) {
  try {
    return engine.estimate_workspace(graph, knobs);
  } catch (...) {
    return Error(ErrorCode::INTERNAL, fmt::format("engine '{}' threw while estimating its workspace: {}",
                                                  engine.descriptor().name, what_of(std::current_exception())));
  }
}

Error check_variant_pack(const OperationGraph& graph, const VariantPack& variant_pack, std::string_view call) {
  if (variant_pack.empty()) return {ErrorCode::INVALID_VALUE, fmt::format("{}: the variant pack is empty", call)};
  std::vector<std::int64_t> missing;
  std::vector<std::int64_t> null;
  for (std::int64_t uid : graph.required_uids()) {
    auto it = variant_pack.find(uid);
    if (it == variant_pack.end()) {
      missing.push_back(uid);
    } else if (it->second == nullptr) {
      null.push_back(uid);
    }
  }
  if (!missing.empty()) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("{}: the variant pack is missing tensor uids [{}]", call, fmt::join(missing, ", "))};
  }
  if (!null.empty()) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("{}: the variant pack maps tensor uids [{}] to null", call, fmt::join(null, ", "))};
  }
  return Error::ok();
}

std::optional<std::string> Deselection::engine_reason(std::int64_t id, const std::string& name) const {
  if (ids.count(id) != 0 || names.count(name) != 0) {
    return fmt::format("Plan barred: engine '{}' (id {}) is deselected by deselect_engines()", name, id);
  }
  return std::nullopt;
}

std::optional<std::string> Deselection::workspace_reason(std::int64_t workspace) const {
  if (workspace_limit && workspace > *workspace_limit) {
    return fmt::format("Plan barred: workspace {} bytes is greater than deselect_workspace_greater_than({})", workspace,
                       *workspace_limit);
  }
  return std::nullopt;
}

}  // namespace tunekit::graph::detail
