// Graph validation (defaults, uids, operations, wiring, order) and
// build_operation_graph, plus the engine ordering shared by both paths.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "graph_impl.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph {
namespace {

Error invalid(const std::string& message) { return {ErrorCode::INVALID_VALUE, "validate: " + message}; }

// Packed strides, default types and shape checks for one tensor. The element
// count, the span its strides reach and that span in bytes must fit in int64,
// so that every later size computation (buffers, workspaces, kernel loops)
// is exact.
Error complete_tensor(TensorAttributes& tensor, DataType io, DataType intermediate) {
  if (tensor.get_dim().empty()) return invalid(fmt::format("tensor {} has no dims", tensor.describe()));
  for (std::size_t i = 0; i < tensor.get_dim().size(); ++i) {
    if (tensor.get_dim()[i] <= 0) {
      return invalid(fmt::format("tensor {}: dim {} is {}; dims must be positive", tensor.describe(), i,
                                 tensor.get_dim()[i]));
    }
  }
  if (Result<std::int64_t> count = tensor.element_count(); !count.ok()) return invalid(count.error().message());
  if (tensor.get_stride().empty()) tensor.set_stride(TensorAttributes::packed_strides(tensor.get_dim()));
  if (tensor.get_stride().size() != tensor.get_dim().size()) {
    return invalid(fmt::format("tensor {} has {} dims but {} strides", tensor.describe(), tensor.get_dim().size(),
                               tensor.get_stride().size()));
  }
  for (std::size_t i = 0; i < tensor.get_stride().size(); ++i) {
    if (tensor.get_stride()[i] <= 0) {
      return invalid(fmt::format("tensor {}: stride {} is {}; strides must be positive", tensor.describe(), i,
                                 tensor.get_stride()[i]));
    }
  }
  if (!tensor.get_data_type()) tensor.set_data_type(tensor.get_is_virtual() ? intermediate : io);
  if (Result<std::int64_t> bytes = tensor.span_bytes(); !bytes.ok()) return invalid(bytes.error().message());
  return Error::ok();
}

}  // namespace

Error Graph::validate() {
  Impl& g = *impl_;
  g.validated = false;
  g.built = false;
  if (g.operations.empty()) return invalid("the graph has no operations");

  // Every tensor once, in order of first use (added tensors first).
  std::vector<Tensor> tensors;
  std::set<const TensorAttributes*> seen;
  auto collect = [&](const Tensor& t) {
    if (t && seen.insert(t.get()).second) tensors.push_back(t);
  };
  for (const auto& t : g.tensors) collect(t);
  for (const auto& op : g.operations) {
    for (const auto& [port, t] : op.inputs) collect(t);
    for (const auto& [port, t] : op.outputs) collect(t);
  }
  for (const auto& t : tensors) TUNEKIT_RETURN_IF_ERROR(complete_tensor(*t, g.io_data_type, g.intermediate_data_type));

  std::map<std::int64_t, Tensor> by_uid;
  std::int64_t largest = 0;
  for (const auto& t : tensors) {
    if (!t->has_uid()) continue;
    auto [it, inserted] = by_uid.emplace(t->get_uid(), t);
    if (!inserted) {
      return invalid(fmt::format("tensors {} and {} have the same uid", it->second->describe(), t->describe()));
    }
    largest = std::max(largest, t->get_uid());
  }
  for (const auto& t : tensors) {
    if (!t->has_uid()) t->set_uid(++largest);
  }

  for (std::size_t i = 0; i < g.operations.size(); ++i) {
    TUNEKIT_RETURN_IF_ERROR(validate_operation(g.operations[i], i));
  }

  // Wiring: one producer per tensor, virtual tensors produced and consumed.
  std::map<const TensorAttributes*, std::size_t> producer;
  std::map<const TensorAttributes*, std::vector<std::size_t>> consumers;
  for (std::size_t i = 0; i < g.operations.size(); ++i) {
    const Operation& op = g.operations[i];
    for (const auto& [port, t] : op.outputs) {
      auto [it, inserted] = producer.emplace(t.get(), i);
      if (!inserted) {
        return invalid(fmt::format("tensor {} is produced by both {} and {}", t->describe(),
                                   g.operations[it->second].describe(it->second), op.describe(i)));
      }
    }
    for (const auto& [port, t] : op.inputs) consumers[t.get()].push_back(i);
  }
  for (const auto& t : tensors) {
    const bool produced = producer.count(t.get()) != 0;
    const bool consumed = consumers.count(t.get()) != 0;
    if (!produced && !consumed) return invalid(fmt::format("tensor {} is not used by any operation", t->describe()));
    if (t->get_is_virtual() && !produced) {
      return invalid(fmt::format("virtual tensor {} is not produced by any operation", t->describe()));
    }
    if (t->get_is_virtual() && !consumed) {
      return invalid(fmt::format("virtual tensor {} is produced by {} but never consumed; mark it as an output",
                                 t->describe(), g.operations[producer[t.get()]].describe(producer[t.get()])));
    }
  }

  // Topological order, stable with respect to the order operations were added.
  const std::size_t n = g.operations.size();
  std::vector<std::size_t> pending(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& [port, t] : g.operations[i].inputs) pending[i] += producer.count(t.get());
  }
  std::vector<std::size_t> order;
  std::vector<bool> done(n, false);
  while (order.size() < n) {
    std::size_t next = n;
    for (std::size_t i = 0; i < n && next == n; ++i) {
      if (!done[i] && pending[i] == 0) next = i;
    }
    if (next == n) return invalid("the operations form a cycle");
    done[next] = true;
    order.push_back(next);
    for (const auto& [port, t] : g.operations[next].outputs) {
      for (std::size_t consumer : consumers[t.get()]) --pending[consumer];
    }
  }
  std::vector<Operation> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(g.operations[i]));
  g.operations = std::move(sorted);
  g.validated = true;
  return Error::ok();
}

Error Graph::build_operation_graph(Handle* handle) {
  Impl& g = *impl_;
  if (!handle) return {ErrorCode::INVALID_VALUE, "build_operation_graph: invalid handle (null)"};
  if (!g.validated) TUNEKIT_RETURN_IF_ERROR(validate());
  std::vector<Tensor> tensors;
  std::set<const TensorAttributes*> seen;
  for (const auto& op : g.operations) {
    for (const auto* ports : {&op.inputs, &op.outputs}) {
      for (const auto& [port, t] : *ports) {
        if (seen.insert(t.get()).second) tensors.push_back(t);
      }
    }
  }
  g.specs.clear();
  g.plans.clear();
  g.active_plan.reset();
  g.tuned_plan.reset();
  g.operation_graph = OperationGraph(g.name, g.operations, std::move(tensors), g.compute_data_type);
  g.device = &handle->device();
  g.registry = handle->registry_ptr();
  g.built = true;
  log::debug("graph '{}': built with {} operations, signature {}", g.name, g.operations.size(),
             g.operation_graph.signature().to_hex());
  return Error::ok();
}

bool Graph::is_built() const noexcept { return impl_->built; }
const OperationGraph& Graph::operation_graph() const { return impl_->operation_graph; }

Error Graph::Impl::require_built(std::string_view call) const {
  if (!built) return {ErrorCode::BAD_STATE, fmt::format("{}: build_operation_graph() has not been called", call)};
  return Error::ok();
}

std::vector<const Engine*> Graph::Impl::ordered_engines(const std::vector<HeuristicMode>& modes) const {
  std::vector<const Engine*> applicable;
  for (const auto& engine : registry->engines()) {
    if (engine->descriptor().oracle_only) continue;
    Error support;
    try {
      support = engine->check_applicable(operation_graph, *device);
    } catch (...) {
      support = Error(ErrorCode::NOT_SUPPORTED, "applicability check threw");
    }
    if (support.is_good()) {
      applicable.push_back(engine.get());
    } else {
      log::debug("graph '{}': engine '{}' does not apply: {}", name, engine->descriptor().name, support.message());
    }
  }
  std::vector<const Engine*> ordered;
  for (HeuristicMode mode : modes) {
    std::vector<const Engine*> by_mode = applicable;
    if (mode != HeuristicMode::FALLBACK) {
      std::stable_sort(by_mode.begin(), by_mode.end(), [](const Engine* a, const Engine* b) {
        return a->descriptor().heuristic_priority < b->descriptor().heuristic_priority;
      });
    }
    for (const Engine* engine : by_mode) {
      if (std::find(ordered.begin(), ordered.end(), engine) == ordered.end()) ordered.push_back(engine);
    }
  }
  return ordered;
}

detail::ExecutionPlan* Graph::Impl::selected_plan() {
  if (tuned_plan) return tuned_plan.get();
  if (active_plan && *active_plan < plans.size()) return &plans[*active_plan];
  return nullptr;
}

}  // namespace tunekit::graph
