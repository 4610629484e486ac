// The result check before timing: a reference engine's outputs on the
// caller's inputs, and each candidate's compared with them by the
// comparison calibration uses (core/element_compare.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "autotune_runner.hpp"
#include "tunekit/core/element_compare.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph::detail {
namespace {

// The engine whose results are the truth: the one asked for, or the first
// registered reference engine that runs this graph; nullptr and why not.
const Engine* choose_reference(const Graph::Impl& g, const AutotuneConfig& config, std::string& why_not) {
  if (config.reference_engine_id >= 0) {
    const Engine* engine = g.registry->find(config.reference_engine_id);
    if (engine == nullptr) {
      why_not = fmt::format("the reference engine id {} is not registered", config.reference_engine_id);
      return nullptr;
    }
    if (Error applies = engine->check_applicable(g.operation_graph, *g.device); applies.is_bad()) {
      why_not = fmt::format("the reference engine {} does not run this graph: {}", engine->descriptor().name,
                            applies.message());
      return nullptr;
    }
    return engine;
  }
  for (const auto& engine : g.registry->engines()) {
    if (!engine->descriptor().reference) continue;
    if (engine->check_applicable(g.operation_graph, *g.device).is_good()) return engine.get();
  }
  why_not = "no reference engine runs this graph";
  return nullptr;
}

}  // namespace

ResultChecker::ResultChecker(Graph::Impl& g, const AutotuneRequest& request) : g_(g), request_(request) {
  if (!request.config.check_results) return;
  platform::Device& device = request.handle.device();
  if (device.kind() != platform::DeviceKind::CPU) {
    unavailable_ = fmt::format("the outputs live on a {} device", platform::to_string(device.kind()));
    return;
  }
  const Engine* reference = choose_reference(g, request.config, unavailable_);
  if (reference == nullptr) return;
  reference_name_ = reference->descriptor().name;

  std::set<std::int64_t> produced;
  for (const Operation& op : g.operation_graph.operations()) {
    for (const auto& [port, tensor] : op.outputs) {
      if (!tensor->get_is_virtual()) produced.insert(tensor->get_uid());
    }
  }
  for (std::int64_t uid : produced) {
    const Tensor tensor = g.operation_graph.find_tensor(uid);
    const auto found = request.variant_pack.find(uid);
    const Result<std::int64_t> bytes = tensor->span_bytes();
    if (found == request.variant_pack.end() || found->second == nullptr || !bytes.ok()) continue;
    Output out;
    out.uid = uid;
    out.name = tensor->get_name();
    out.type = tensor->get_data_type().value_or(DataType::FLOAT);
    out.elements = *bytes / static_cast<std::int64_t>(core::size_of(out.type));
    out.data = found->second;
    outputs_.push_back(std::move(out));
  }
  if (outputs_.empty()) {
    unavailable_ = "the graph has no output in the variant pack";
    return;
  }

  ExecutionPlan plan = make_plan(reference, reference->descriptor().id, {}, 0);
  if (Error compiled = compile_plan(plan, g.operation_graph, device); compiled.is_bad()) {
    unavailable_ = fmt::format("the reference engine {} did not compile: {}", reference_name_, plan.failure);
    return;
  }
  Result<platform::DeviceBuffer> workspace = device.allocate(static_cast<std::size_t>(std::max<std::int64_t>(plan.workspace_size, 0)));
  if (!workspace.ok()) {
    unavailable_ = fmt::format("no workspace for the reference engine {}: {}", reference_name_,
                               workspace.error().message());
    return;
  }
  poison_outputs();
  platform::Stream& stream = request.handle.stream();
  Error ran = execute_plan(plan, request.variant_pack, workspace->data(), plan.workspace_size, stream);
  if (ran.is_good()) ran = stream.synchronize();
  if (ran.is_bad()) {
    unavailable_ = fmt::format("the reference engine {} failed: {}", reference_name_, ran.message());
    return;
  }
  for (Output& out : outputs_) {
    const std::size_t size = static_cast<std::size_t>(out.elements) * core::size_of(out.type);
    out.expected.resize(size);
    std::memcpy(out.expected.data(), out.data, size);
  }
  log::info("autotune: results are checked against the reference engine {}", reference_name_);
}

void ResultChecker::poison_outputs() {
  for (Output& out : outputs_) core::poison_elements(out.type, out.data, out.elements);
}

std::string ResultChecker::check(ExecutionPlan& plan, AutotuneResult& result) {
  if (!request_.config.check_results) return {};
  if (!unavailable_.empty()) {
    result.result_check = "not checked: " + unavailable_;
    return {};
  }
  poison_outputs();
  platform::Stream& stream = request_.handle.stream();
  Error ran = execute_plan(plan, request_.variant_pack, request_.workspace, plan.workspace_size, stream);
  if (ran.is_good()) ran = stream.synchronize();
  if (ran.is_bad()) {
    // Its warm-up will fail the same way and say so; the check has nothing to compare.
    result.result_check = "not checked: its execution failed: " + ran.message();
    return {};
  }
  double largest = 0.0;
  for (const Output& out : outputs_) {
    const double tolerance =
        request_.config.result_tolerance > 0.0 ? request_.config.result_tolerance : core::engine_tolerance(out.type);
    const core::ElementComparison comparison =
        core::compare_elements(out.type, out.expected.data(), out.data, out.elements, tolerance);
    largest = std::max(largest, comparison.largest_error);
    if (!comparison.agrees()) {
      result.result_error = comparison.largest_error;
      result.result_check = fmt::format("wrong result against {}", reference_name_);
      return fmt::format("wrong result against {}: tensor '{}' (uid {}): {}", reference_name_, out.name, out.uid,
                         core::describe_mismatch(comparison, tolerance));
    }
  }
  result.result_error = largest;
  result.result_check = fmt::format("agrees with {} (largest error {:.2g})", reference_name_, largest);
  return {};
}

}  // namespace tunekit::graph::detail
