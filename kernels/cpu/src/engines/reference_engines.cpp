// The reference engines: one executor that runs matmul and pointwise
// operations in order (intermediates in the workspace), offered as four
// engines that differ in what they accept and how the matmul loops run.
#include <fmt/format.h>

#include <limits>
#include <map>
#include <optional>

#include "reference_kernels.hpp"
#include "tunekit/core/checked_math.hpp"
#include "tunekit/cpu/engines.hpp"

namespace tunekit::cpu {
namespace {

using graph::Engine;
using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using graph::OperationKind;

constexpr std::int64_t kAlignment = 64;

Error unsupported(const std::string& why) { return {ErrorCode::NOT_SUPPORTED, why}; }

// Float matmuls of rank 2 and pointwise operations; single: exactly one operation of kind.
Error check_graph(const OperationGraph& graph, std::optional<OperationKind> single) {
  if (single && (graph.operations().size() != 1 || graph.operations()[0].kind != *single)) {
    return unsupported(fmt::format("only a single {} operation", graph::to_string(*single)));
  }
  for (const graph::Operation& op : graph.operations()) {
    if (op.kind != OperationKind::MATMUL && op.kind != OperationKind::POINTWISE) {
      return unsupported(fmt::format("{} operations are not supported", graph::to_string(op.kind)));
    }
    for (const auto* ports : {&op.inputs, &op.outputs}) {
      for (const auto& [port, tensor] : *ports) {
        if (tensor->get_data_type() != DataType::FLOAT) return unsupported("only float tensors are supported");
        if (op.kind == OperationKind::MATMUL && tensor->get_dim().size() != 2) {
          return unsupported("only rank-2 matmuls are supported");
        }
      }
    }
    if (op.kind == OperationKind::POINTWISE) {
      const auto mode = op.string_attribute("mode");
      if (!mode || !graph::parse_pointwise_mode(*mode)) return unsupported("unknown pointwise mode");
    }
  }
  return Error::ok();
}

// Where the virtual tensors live in the workspace: offset by uid, and the total.
struct WorkspaceLayout {
  std::map<std::int64_t, std::int64_t> offsets;
  std::int64_t total = 0;
};

// Sizes are checked: a validated graph has tensors whose bytes fit in int64,
// but their aligned sum may still not.
Result<WorkspaceLayout> layout(const OperationGraph& graph) {
  WorkspaceLayout result;
  for (const graph::Tensor& t : graph.tensors()) {
    if (!t->get_is_virtual()) continue;
    Result<std::int64_t> bytes = t->span_bytes();
    if (!bytes.ok()) return bytes.error();
    result.offsets[t->get_uid()] = result.total;
    const std::optional<std::int64_t> end = core::checked_add(result.total, *bytes);
    const std::optional<std::int64_t> padded = end ? core::checked_add(*end, kAlignment - 1) : std::nullopt;
    if (!padded) {
      return Error(ErrorCode::NOT_SUPPORTED,
                   fmt::format("the virtual tensors up to {} need more than {} bytes of workspace", t->describe(),
                               std::numeric_limits<std::int64_t>::max()));
    }
    result.total = *padded / kAlignment * kAlignment;
  }
  return result;
}

class SequentialKernel final : public ExecutionKernel {
 public:
  SequentialKernel(const OperationGraph& graph, std::int64_t tile, WorkspaceLayout layout)
      : graph_(graph), tile_(tile), layout_(std::move(layout)) {}
  std::int64_t workspace_size() const override { return layout_.total; }
  Error execute(const ExecutionArguments& args) override {
    if (layout_.total > 0 && (args.workspace == nullptr || args.workspace_size < layout_.total)) {
      return {ErrorCode::INVALID_VALUE, fmt::format("needs {} bytes of workspace", layout_.total)};
    }
    auto view = [&](const graph::Tensor& t) -> reference::View {
      if (t->get_is_virtual()) {
        return reference::view_of(*t, static_cast<std::byte*>(args.workspace) + layout_.offsets.at(t->get_uid()));
      }
      auto it = args.variant_pack.find(t->get_uid());
      return reference::view_of(*t, it == args.variant_pack.end() ? nullptr : it->second);
    };
    for (const graph::Operation& op : graph_.operations()) {
      if (op.kind == OperationKind::MATMUL) {
        reference::matmul(view(op.input("A")), view(op.input("B")), view(op.output("C")), tile_);
      } else {
        const graph::PointwiseMode mode = *graph::parse_pointwise_mode(*op.string_attribute("mode"));
        const reference::View out = view(op.output("OUT_0"));
        if (op.input("IN_1")) {
          const reference::View second = view(op.input("IN_1"));
          reference::pointwise(mode, view(op.input("IN_0")), &second, out);
        } else {
          reference::pointwise(mode, view(op.input("IN_0")), nullptr, out);
        }
      }
    }
    return Error::ok();
  }

 private:
  OperationGraph graph_;
  std::int64_t tile_;
  WorkspaceLayout layout_;
};

class ReferenceEngine final : public Engine {
 public:
  ReferenceEngine(EngineDescriptor descriptor, std::optional<OperationKind> single, std::string tile_knob)
      : descriptor_(std::move(descriptor)), single_(single), tile_knob_(std::move(tile_knob)) {
    descriptor_.reference = true;  // the oracle of autotune's result check
  }
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device& device) const override {
    if (device.kind() != platform::DeviceKind::CPU) return unsupported("runs on the CPU only");
    return check_graph(graph, single_);
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues&) const override {
    Result<WorkspaceLayout> planned = layout(graph);
    if (!planned.ok()) return planned.error();
    return planned->total;
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    Result<WorkspaceLayout> planned = layout(graph);
    if (!planned.ok()) return planned.error();
    const std::int64_t tile = tile_knob_.empty() ? 0 : knobs.get_int(tile_knob_);
    return std::unique_ptr<ExecutionKernel>(new SequentialKernel(graph, tile, std::move(planned).value()));
  }

 private:
  EngineDescriptor descriptor_;
  std::optional<OperationKind> single_;
  std::string tile_knob_;
};

graph::Knob tile_knob(std::string id, std::int64_t default_value, std::int64_t min, std::int64_t step,
                      std::vector<graph::KnobValue> allowed, std::string description) {
  graph::Knob knob;
  knob.id = std::move(id);
  knob.type = graph::KnobType::INT;
  knob.default_value = default_value;
  knob.min_value = min;
  knob.max_value = std::int64_t{128};
  if (step > 0) knob.step = step;
  knob.allowed_values = std::move(allowed);
  knob.description = std::move(description);
  return knob;
}

}  // namespace

ReferenceEngineProvider::ReferenceEngineProvider() {
  engines_.push_back(std::make_shared<ReferenceEngine>(
      EngineDescriptor{kMatmulNaiveEngine, "cpu_matmul_naive", {}, 102, "triple loop over strided float tensors"},
      OperationKind::MATMUL, ""));
  engines_.push_back(std::make_shared<ReferenceEngine>(
      EngineDescriptor{kMatmulBlockedEngine,
                       "cpu_matmul_blocked",
                       {tile_knob("tile", 32, 8, 8, {}, "edge of the square blocks of M, N and K")},
                       101,
                       "cache-blocked loops"},
      OperationKind::MATMUL, "tile"));
  engines_.push_back(std::make_shared<ReferenceEngine>(
      EngineDescriptor{kPointwiseEngine, "cpu_pointwise", {}, 101, "one pointwise operation with broadcasting"},
      OperationKind::POINTWISE, ""));
  engines_.push_back(std::make_shared<ReferenceEngine>(
      EngineDescriptor{kSequentialEngine,
                       "cpu_graph_sequential",
                       {tile_knob("matmul_tile", 0, 0, 0, {std::int64_t{0}, std::int64_t{16}, std::int64_t{32}, std::int64_t{64}},
                                  "matmul block edge (0: plain loops)")},
                       105,
                       "runs matmul and pointwise operations in order, intermediates in the workspace"},
      std::nullopt, "matmul_tile"));
}

Error register_reference_engines(graph::EngineRegistry& registry) {
  return registry.add_provider(ReferenceEngineProvider());
}

}  // namespace tunekit::cpu
