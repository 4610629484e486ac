// Internal: the state behind the Graph facade, shared by the files that
// implement its steps (description, build, plan specs, compiled plans,
// autotune).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "execution_plan.hpp"
#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/graph/graph.hpp"

namespace tunekit::graph {

struct Graph::Impl {
  // Description
  std::string name;
  DataType compute_data_type = DataType::FLOAT;
  DataType io_data_type = DataType::FLOAT;
  DataType intermediate_data_type = DataType::FLOAT;
  std::vector<Tensor> tensors;  // added with tensor()
  std::vector<Operation> operations;

  // Build
  bool validated = false;
  bool built = false;
  OperationGraph operation_graph;
  platform::Device* device = nullptr;
  std::shared_ptr<const EngineRegistry> registry;

  // Candidates: plan specs (plan-spec path) or plans (compiled-plan path)
  PlanSpecList specs;
  detail::Deselection deselection;
  std::vector<detail::ExecutionPlan> plans;
  std::optional<std::size_t> active_plan;               // compiled-plan path selection
  std::unique_ptr<detail::ExecutionPlan> tuned_plan;    // plan-spec path autotune winner

  // The description changed: everything built from it is stale.
  void invalidate();
  // BAD_STATE naming call unless build_operation_graph succeeded.
  Error require_built(std::string_view call) const;
  // Applicable engines in the order of the modes (first mode first, no repeats).
  std::vector<const Engine*> ordered_engines(const std::vector<HeuristicMode>& modes) const;
  // The engine and knobs the override policy (TUNEKIT_HEUR_CONFIG_PATH)
  // selects for this graph among the applicable engines; nullopt when no
  // entry matches or the match no longer applies (logged).
  struct OverrideSelection {
    const Engine* engine = nullptr;
    std::vector<KnobSetting> knob_settings;
  };
  std::optional<OverrideSelection> override_selection(const std::vector<const Engine*>& applicable) const;
  // The plan execute() runs, or null.
  detail::ExecutionPlan* selected_plan();
};

}  // namespace tunekit::graph
