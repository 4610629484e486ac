// Internal: an execution plan (engine, knobs, compiled kernel and its state)
// and the guarded steps on it. Every call into an engine goes through these
// helpers, which turn exceptions into errors so none escapes the library.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tunekit/graph/engine.hpp"

namespace tunekit::graph::detail {

enum class PlanState { CREATED, UNSUPPORTED, COMPILED, FAILED_COMPILE, FAILED_FINALIZE };

struct ExecutionPlan {
  const Engine* engine = nullptr;  // null when the id is not registered
  std::int64_t engine_id = -1;
  std::string engine_name;
  std::vector<KnobSetting> knob_settings;  // explicitly set (normalized)
  KnobValues knobs;                        // every knob, defaults filled in
  std::int64_t estimated_workspace = 0;
  PlanState state = PlanState::CREATED;
  std::string failure;  // why UNSUPPORTED or FAILED_*, with the disposition words
  std::string barred;   // non-empty: excluded by a deselect_* criterion, with the reason
  std::unique_ptr<ExecutionKernel> kernel;
  std::int64_t workspace_size = -1;  // compiled workspace; -1 until compiled
  double compile_ms = 0.0;           // wall time of the last compile and finalize

  bool compiled() const noexcept { return state == PlanState::COMPILED; }
  // "engine_name" or "engine_name[k=v, ...]".
  std::string name() const;
};

// A plan of engine (may be null for an unregistered id) with these settings.
ExecutionPlan make_plan(const Engine* engine, std::int64_t engine_id, std::vector<KnobSetting> settings,
                        std::int64_t estimated_workspace);

// Sets UNSUPPORTED with the reason when the engine cannot run graph; returns that error.
Error check_plan_support(ExecutionPlan& plan, const OperationGraph& graph, const platform::Device& device);
// Compiles and finalizes: COMPILED, or FAILED_COMPILE / FAILED_FINALIZE with
// a failure text starting "failed compile: " or "failed finalize: ".
Error compile_plan(ExecutionPlan& plan, const OperationGraph& graph, platform::Device& device);
// Runs a compiled plan; exceptions from the engine become EXECUTION_FAILED.
Error execute_plan(ExecutionPlan& plan, const VariantPack& variant_pack, void* workspace, std::int64_t workspace_size,
                   platform::Stream& stream);
// Estimate through the engine, exceptions caught.
Result<std::int64_t> estimate_workspace(const Engine& engine, const OperationGraph& graph, const KnobValues& knobs);

// INVALID_VALUE when the pack is empty, or a non-virtual tensor's uid is
// missing or maps to null (every such uid listed). Extra uids are accepted.
Error check_variant_pack(const OperationGraph& graph, const VariantPack& variant_pack, std::string_view call);

// The deselect_* criteria stored on a graph.
struct Deselection {
  std::optional<std::int64_t> workspace_limit;
  std::set<std::string> names;
  std::set<std::int64_t> ids;

  // "Plan barred: ..." when the engine is deselected; nullopt otherwise.
  std::optional<std::string> engine_reason(std::int64_t id, const std::string& name) const;
  std::optional<std::string> workspace_reason(std::int64_t workspace) const;
};

}  // namespace tunekit::graph::detail
