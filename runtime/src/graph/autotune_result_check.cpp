// The result check before timing: a reference engine's outputs on the
// caller's inputs, and each candidate's compared with them by the
// comparison calibration uses (core/element_compare.hpp). On a device the
// host cannot address, the reference runs on the CPU over host copies of the
// inputs and each candidate's outputs are copied back.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "autotune_runner.hpp"
#include "tunekit/core/element_compare.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::graph::detail {
namespace {

// The engine whose results are the truth: the one asked for, or the first
// registered reference engine that runs this graph; nullptr and why not.
const Engine* choose_reference(const Graph::Impl& g, const AutotuneConfig& config, const platform::Device& device,
                               std::string& why_not) {
  if (config.reference_engine_id >= 0) {
    const Engine* engine = g.registry->find(config.reference_engine_id);
    if (engine == nullptr) {
      why_not = fmt::format("the reference engine id {} is not registered", config.reference_engine_id);
      return nullptr;
    }
    if (Error applies = engine->check_applicable(g.operation_graph, device); applies.is_bad()) {
      why_not = fmt::format("the reference engine {} does not run this graph: {}", engine->descriptor().name,
                            applies.message());
      return nullptr;
    }
    return engine;
  }
  for (const auto& engine : g.registry->engines()) {
    if (!engine->descriptor().reference) continue;
    if (engine->check_applicable(g.operation_graph, device).is_good()) return engine.get();
  }
  why_not = "no reference engine runs this graph";
  return nullptr;
}

}  // namespace

ResultChecker::ResultChecker(Graph::Impl& g, const AutotuneRequest& request) : g_(g), request_(request) {
  if (!request.config.check_results) return;
  platform::Device& device = request.handle.device();
  // A GPU's outputs are compared on the host: the reference runs on the CPU
  // over copies of the inputs.
  if (!device.host_addressable()) host_device_ = std::make_unique<platform::CpuDevice>();
  platform::Device& reference_device = host_device_ ? *host_device_ : device;
  const Engine* reference = choose_reference(g, request.config, reference_device, unavailable_);
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
  if (Error compiled = compile_plan(plan, g.operation_graph, reference_device); compiled.is_bad()) {
    unavailable_ = fmt::format("the reference engine {} did not compile: {}", reference_name_, plan.failure);
    return;
  }
  if (host_device_) {
    unavailable_ = run_reference_on_host(plan);
    if (unavailable_.empty()) log::info("autotune: results are checked against the reference engine {} on the host", reference_name_);
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
    out.expected.resize(out.bytes());
    std::memcpy(out.expected.data(), out.data, out.bytes());
  }
  log::info("autotune: results are checked against the reference engine {}", reference_name_);
}

std::string ResultChecker::run_reference_on_host(ExecutionPlan& plan) {
  platform::Device& device = request_.handle.device();
  // A host buffer for every non-virtual tensor of the pack: the inputs copied
  // as they are on the device, the outputs (which the reference writes) not.
  std::vector<platform::DeviceBuffer> copies;
  VariantPack host_pack;
  for (const Tensor& tensor : g_.operation_graph.tensors()) {
    if (tensor->get_is_virtual()) continue;
    const auto found = request_.variant_pack.find(tensor->get_uid());
    const Result<std::int64_t> bytes = tensor->span_bytes();
    if (found == request_.variant_pack.end() || found->second == nullptr || !bytes.ok()) continue;
    Result<platform::DeviceBuffer> copy = host_device_->allocate(static_cast<std::size_t>(*bytes));
    if (!copy.ok()) return fmt::format("no host copy of tensor '{}': {}", tensor->get_name(), copy.error().message());
    const bool output = std::any_of(outputs_.begin(), outputs_.end(),
                                    [&](const Output& out) { return out.uid == tensor->get_uid(); });
    if (Error e = output ? Error::ok()
                         : device.copy_to_host(copy->data(), found->second, static_cast<std::size_t>(*bytes));
        e.is_bad()) {
      return fmt::format("cannot copy tensor '{}' to the host: {}", tensor->get_name(), e.message());
    }
    host_pack[tensor->get_uid()] = copy->data();
    copies.push_back(std::move(copy).value());
  }
  Result<platform::DeviceBuffer> workspace =
      host_device_->allocate(static_cast<std::size_t>(std::max<std::int64_t>(plan.workspace_size, 0)));
  Result<std::unique_ptr<platform::Stream>> stream = host_device_->create_stream();
  if (!workspace.ok() || !stream.ok()) return fmt::format("no workspace or stream for the reference engine {}", reference_name_);
  for (Output& out : outputs_) core::poison_elements(out.type, host_pack.at(out.uid), out.elements);
  Error ran = execute_plan(plan, host_pack, workspace->data(), plan.workspace_size, **stream);
  if (ran.is_bad()) return fmt::format("the reference engine {} failed: {}", reference_name_, ran.message());
  for (Output& out : outputs_) {
    out.expected.resize(out.bytes());
    std::memcpy(out.expected.data(), host_pack.at(out.uid), out.bytes());
    out.staged.resize(out.bytes());
  }
  return {};
}

std::string ResultChecker::poison_outputs() {
  for (Output& out : outputs_) {
    if (!host_device_) {
      core::poison_elements(out.type, out.data, out.elements);
      continue;
    }
    core::poison_elements(out.type, out.staged.data(), out.elements);
    if (Error e = request_.handle.device().copy_to_device(out.data, out.staged.data(), out.bytes()); e.is_bad()) {
      return fmt::format("cannot poison tensor '{}' on the device: {}", out.name, e.message());
    }
  }
  return {};
}

std::string ResultChecker::check(ExecutionPlan& plan, AutotuneResult& result) {
  if (!request_.config.check_results) return {};
  if (!unavailable_.empty()) {
    result.result_check = "not checked: " + unavailable_;
    return {};
  }
  if (std::string failed = poison_outputs(); !failed.empty()) {
    result.result_check = "not checked: " + failed;
    return {};
  }
  platform::Stream& stream = request_.handle.stream();
  Error ran = execute_plan(plan, request_.variant_pack, request_.workspace, plan.workspace_size, stream);
  if (ran.is_good()) ran = stream.synchronize();
  if (ran.is_bad()) {
    // Its warm-up will fail the same way and say so; the check has nothing to compare.
    result.result_check = "not checked: its execution failed: " + ran.message();
    return {};
  }
  double largest = 0.0;
  for (Output& out : outputs_) {
    const void* actual = out.data;
    if (host_device_) {
      if (Error e = request_.handle.device().copy_to_host(out.staged.data(), out.data, out.bytes()); e.is_bad()) {
        result.result_check = fmt::format("not checked: cannot copy tensor '{}' to the host: {}", out.name, e.message());
        return {};
      }
      actual = out.staged.data();
    }
    const double tolerance =
        request_.config.result_tolerance > 0.0 ? request_.config.result_tolerance : core::engine_tolerance(out.type);
    const core::ElementComparison comparison =
        core::compare_elements(out.type, out.expected.data(), actual, out.elements, tolerance);
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
