// The Graph facade: describe tensors and operations, then run the named
// steps (validate, build_operation_graph, plan specs or compiled plans,
// autotune, execute). Each concern is implemented in its own file; this
// header only declares the steps. Graph API calls return Error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/error.hpp"
#include "tunekit/graph/autotune_config.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/handle.hpp"
#include "tunekit/graph/knob.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/operation_graph.hpp"
#include "tunekit/graph/plan_spec.hpp"
#include "tunekit/graph/tensor.hpp"

namespace tunekit::graph {

enum class BuildPlanPolicy {
  HEURISTICS_CHOICE,  // compile candidates in order until one succeeds
  ALL,                // compile every candidate
};

// Tensor -> device pointer, converted to a VariantPack by uid.
using TensorLookup = std::unordered_map<Tensor, void*>;

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // ---- Description (graph_description.cpp)
  Graph& set_name(std::string name);
  Graph& set_compute_data_type(DataType type);       // default FLOAT
  Graph& set_io_data_type(DataType type);            // for non-virtual tensors without a type
  Graph& set_intermediate_data_type(DataType type);  // for virtual tensors without a type
  const std::string& name() const noexcept;
  // Adds a tensor of the graph (a graph input or output) and returns its handle.
  Tensor tensor(const TensorAttributes& attributes);
  // Adds an operation; its tensors need not have been added with tensor().
  Graph& add_operation(Operation operation);
  // Factories that create the output as a virtual tensor with inferred dims;
  // call set_output(true) on it to make it a graph output.
  Tensor matmul(Tensor a, Tensor b, std::string name = {});
  Tensor pointwise(Tensor input, PointwiseMode mode, std::string name = {});
  Tensor pointwise(Tensor input0, Tensor input1, PointwiseMode mode, std::string name = {});
  const std::vector<Operation>& operations() const noexcept;

  // ---- Steps (graph_build.cpp)
  // Fills defaults (packed strides, data types, uids of tensors without one)
  // and checks every tensor (positive dims and strides; element count, span
  // and bytes that fit in int64), every operation and the wiring: unique
  // uids, one producer per tensor, virtual tensors produced and consumed
  // inside the graph, no cycle.
  Error validate();
  // Validates if needed and freezes the graph for engines on handle's device.
  Error build_operation_graph(Handle* handle);
  bool is_built() const noexcept;
  const OperationGraph& operation_graph() const;  // empty before build_operation_graph

  // ---- Plan-spec path (graph_plan_specs.cpp)
  Error get_engine_configs(std::vector<EngineConfigInfo>& configs,
                           const std::vector<HeuristicMode>& modes = {HeuristicMode::FALLBACK}) const;
  Error add_engine_configs(const std::vector<EngineConfigInfo>& configs);
  Error add_engines(const std::vector<std::int64_t>& engine_ids);
  Error add_engine(std::int64_t engine_id, const std::vector<KnobSetting>& knob_settings = {});
  // The batch calls skip a variant whose engine is not registered or refuses
  // its knobs for this graph (NOT_SUPPORTED), each logged with its reason; any
  // other error (a knob value out of range) stops the batch, the variants
  // before it staying stored.
  Error add_engine_variants(const std::vector<EngineVariant>& variants);
  // What add_engine_variants would find for one variant without storing it:
  // NOT_SUPPORTED with the engine's reason where it refuses the knobs for
  // this graph (the variants a batch call skips), INVALID_VALUE for an
  // unregistered engine or a bad knob, BAD_STATE before
  // build_operation_graph, else OK. For lists of candidates
  // made outside the graph (tune --isolate runs each in its own process).
  Error check_engine_variant(const EngineVariant& variant) const;
  Error add_engine_sweep(const std::vector<EngineSweepSpec>& specs);
  Error add_all_engines(const std::vector<HeuristicMode>& modes = {HeuristicMode::FALLBACK});
  Error get_estimated_max_workspace_size(std::int64_t& max_size) const;
  const std::vector<PlanSpec>& plan_specs() const noexcept;

  // ---- Filtering (graph_compiled_plans.cpp); evaluated by build_plans and autotune
  Graph& deselect_workspace_greater_than(std::int64_t workspace);  // last call wins
  Graph& deselect_engines(const std::vector<std::string>& engine_names);  // accumulates
  Graph& deselect_engines(const std::vector<std::int64_t>& engine_ids);   // accumulates

  // ---- Compiled-plan path (graph_compiled_plans.cpp)
  Error create_execution_plans(const std::vector<HeuristicMode>& modes = {HeuristicMode::FALLBACK});
  // Replaces every plan with one plan of this engine and knobs (global.benchmarking allowed).
  Error create_execution_plan_ext(std::int64_t engine_id, const std::map<std::string, KnobValue>& knobs = {});
  Error check_support();
  Error build_plans(BuildPlanPolicy policy = BuildPlanPolicy::HEURISTICS_CHOICE);
  // create_execution_plans, check_support and build_plans(HEURISTICS_CHOICE) in one call.
  Error build(Handle* handle, const std::vector<HeuristicMode>& modes = {HeuristicMode::FALLBACK});
  // Every plan, deselected ones included: indices stay stable.
  std::int64_t get_execution_plan_count() const noexcept;
  Error execute_plan_at_index(Handle* handle, const VariantPack& variant_pack, void* workspace, std::int64_t index);
  // Compiles the plan at index if needed and makes it the one execute() runs.
  Error build_plan_at_index(std::int64_t index);
  Error get_workspace_size_plan_at_index(std::int64_t index, std::int64_t& size) const;
  // The cuDNN-compatible twin, kept because cuDNN's manual benchmarking loop
  // calls it (hipDNN RFC, porting table): -1 for an invalid index or a plan
  // that was not built. New code should use the Error-returning overload.
  std::int64_t get_workspace_size_plan_at_index(std::int64_t index) const;
  Error get_plan_name_at_index(std::int64_t index, std::string& name) const;
  // Largest compiled workspace over the plans that are not deselected; 0 when none.
  std::int64_t get_autotune_workspace_size() const;
  // Workspace of the plan execute() runs; 0 when there is none.
  std::int64_t get_workspace_size() const;

  // ---- Autotune (graph_autotune.cpp)
  // Compiled-plan path only.
  Error autotune(Handle* handle, const VariantPack& variant_pack, void* workspace,
                 const AutotuneConfig& config = {}, const AutotuneStorageConfig& storage = {},
                 std::vector<AutotuneResult>* results = nullptr);
  Error autotune(Handle* handle, const TensorLookup& tensor_lookup, void* workspace,
                 const AutotuneConfig& config = {}, const AutotuneStorageConfig& storage = {},
                 std::vector<AutotuneResult>* results = nullptr);
  // Either path; plans whose compiled workspace exceeds workspace_size are skipped.
  Error autotune(Handle* handle, const VariantPack& variant_pack, void* workspace, std::int64_t workspace_size,
                 const AutotuneConfig& config = {}, const AutotuneStorageConfig& storage = {},
                 std::vector<AutotuneResult>* results = nullptr);
  Error autotune(Handle* handle, const TensorLookup& tensor_lookup, void* workspace, std::int64_t workspace_size,
                 const AutotuneConfig& config = {}, const AutotuneStorageConfig& storage = {},
                 std::vector<AutotuneResult>* results = nullptr);
  // cuDNN-compatible: compiled-plan path, default configuration, no results.
  Error autotune(Handle* handle, VariantPack& variant_pack, void* workspace, void* user_impl = nullptr);
  Error autotune(Handle* handle, TensorLookup& tensor_lookup, void* workspace, void* user_impl = nullptr);

  // ---- Execution (graph_compiled_plans.cpp): runs the selected plan.
  Error execute(Handle* handle, const VariantPack& variant_pack, void* workspace);
  Error execute(Handle* handle, const TensorLookup& tensor_lookup, void* workspace);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The uid-keyed pack for a tensor lookup; INVALID_VALUE for a null tensor or
// one without a uid, or two tensors with one uid.
Result<VariantPack> to_variant_pack(const TensorLookup& tensor_lookup);

}  // namespace tunekit::graph
