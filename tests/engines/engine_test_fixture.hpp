// What the CPU engine tests share: a registry of every CPU engine, a handle
// on the CPU device, and running one engine's plan of a graph, as a user
// would, with a workspace of the size the plan asks for.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/cpu/isa.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {

class CpuEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<graph::EngineRegistry>();
    ASSERT_TRUE(register_cpu_engines(*registry).is_good());
    registry_ = registry;
    handle_ = std::move(graph::Handle::create(device_, registry_)).value();
  }

  std::string name_of(std::int64_t engine) const { return registry_->find(engine)->descriptor().name; }

  // Builds `graph` for the handle, compiles `engine` with `knobs` and runs it
  // on `pack` (one byte more workspace than the plan asks for).
  Error run(graph::Graph& graph, std::int64_t engine, const std::map<std::string, graph::KnobValue>& knobs,
            const graph::VariantPack& pack) {
    TUNEKIT_RETURN_IF_ERROR(graph.build_operation_graph(handle_.get()));
    TUNEKIT_RETURN_IF_ERROR(graph.create_execution_plan_ext(engine, knobs));
    TUNEKIT_RETURN_IF_ERROR(graph.build_plans(graph::BuildPlanPolicy::ALL));
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    return graph.execute(handle_.get(), pack, workspace.data());
  }

  // Why `engine` does not apply to `graph` (built for the handle); empty when it does.
  std::string refusal(graph::Graph& graph, std::int64_t engine) {
    const Error built = graph.build_operation_graph(handle_.get());
    if (!built.is_good()) return built.message();
    return registry_->find(engine)->check_applicable(graph.operation_graph(), device_).message();
  }

  platform::CpuDevice device_;
  std::shared_ptr<const graph::EngineRegistry> registry_;
  std::unique_ptr<graph::Handle> handle_;
};

// The instruction-set paths this processor runs (portable first).
inline std::vector<cpu::CpuIsa> runnable_isas() {
  std::vector<cpu::CpuIsa> isas;
  for (cpu::CpuIsa isa : {cpu::CpuIsa::PORTABLE, cpu::CpuIsa::AVX2, cpu::CpuIsa::AVX512}) {
    if (cpu::ScopedIsa::force(isa).ok()) isas.push_back(isa);
  }
  return isas;
}

}  // namespace tunekit::engines
