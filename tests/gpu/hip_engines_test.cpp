// The GPU engine plugin tunekit-hip: it loads on any machine (HIP's runtime
// is there; a GPU need not be), its engines and knobs register, they refuse
// the CPU with their reason, their workspace estimates follow the knobs, and
// on a GPU every engine that applies to a sample graph's shapes agrees with
// the CPU reference engines within float's tolerance (skipped, with the
// probe's reason, without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "tunekit/core/element_compare.hpp"
#include "tunekit/cpu/engines.hpp"
#include "tunekit/graph/engine_plugin.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_buffers.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/platform/hip_device.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::graph {
namespace {

constexpr std::int64_t kHipEngines[] = {1000, 1001, 1002, 1010, 1020, 1030};

std::filesystem::path sample(const char* name) {
  return std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs" / name;
}

class HipEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<EngineRegistry>();
    const std::vector<EnginePluginLoad> loads = load_engine_plugins({TUNEKIT_HIP_PLUGIN}, *registry);
    ASSERT_EQ(loads.size(), 1u);
    ASSERT_TRUE(loads[0].loaded) << loads[0].reason;
    EXPECT_EQ(loads[0].engines_added, std::size(kHipEngines));
    registry_ = registry;
  }

  // The operation graph of a sample graph's shape set, built on the CPU.
  Result<Graph> built(const char* file, std::optional<std::size_t> shape_set = std::nullopt) {
    Result<GraphFile> parsed = read_graph_file(sample(file));
    if (!parsed.ok()) return parsed.error();
    Result<Graph> graph = make_graph(*parsed, shape_set);
    if (!graph.ok()) return graph.error();
    auto handle = Handle::create(cpu_, registry_);
    if (!handle.ok()) return handle.error();
    TUNEKIT_RETURN_IF_ERROR(graph->build_operation_graph(handle->get()));
    return graph;
  }

  platform::CpuDevice cpu_;
  std::shared_ptr<const EngineRegistry> registry_;
};

TEST_F(HipEngines, RegisterWithStableIdsNamesAndTheirLibraryVersion) {
  const std::map<std::int64_t, std::string> expected = {
      {1000, "HIP_MATMUL_TUNEKIT_NAIVE"}, {1001, "HIP_MATMUL_TUNEKIT_TILED"}, {1002, "HIP_MATMUL_FIND"},
      {1010, "HIP_POINTWISE_TUNEKIT"},    {1020, "HIP_REDUCTION_TUNEKIT"},    {1030, "HIP_CONV_TUNEKIT_IMPLICIT_GEMM"}};
  for (const auto& [id, name] : expected) {
    const Engine* engine = registry_->find(id);
    ASSERT_NE(engine, nullptr) << id;
    EXPECT_EQ(engine->descriptor().name, name);
  }
  // An override tuned against these kernels misses on another HIP version or architecture list.
  const EngineOrigin* origin = registry_->origin(1001);
  ASSERT_NE(origin, nullptr);
  EXPECT_EQ(origin->provider, "tunekit-hip");
  EXPECT_EQ(origin->catalogue_version.rfind("tunekit-hip-1 hip-", 0), 0u) << origin->catalogue_version;
  EXPECT_NE(origin->catalogue_version.find(TUNEKIT_HIP_ARCHITECTURES_TEXT), std::string::npos)
      << origin->catalogue_version;
  EXPECT_TRUE(registry_->find(1002)->descriptor().supports_exhaustive());
  EXPECT_FALSE(registry_->find(1001)->descriptor().supports_exhaustive());
  const Knob* split = registry_->find(1001)->descriptor().find_knob("split_k");
  ASSERT_NE(split, nullptr);
  EXPECT_FALSE(normalize_knob_value(*split, KnobValue{std::int64_t{3}}).ok()) << "split-k 3 is not offered";
  EXPECT_TRUE(normalize_knob_value(*split, KnobValue{std::int64_t{4}}).ok());
  const Knob* tile = registry_->find(1030)->descriptor().find_knob("tile");
  ASSERT_NE(tile, nullptr);
  EXPECT_GE(tile->allowed_values.size(), 4u);
}

TEST_F(HipEngines, RefuseTheCpuNamingTheDevice) {
  for (const char* file : {"matmul_bias_relu.toml", "reduction.toml", "resnet50_conv3x3.toml", "bert_bias_gelu.toml"}) {
    Result<Graph> graph = built(file);
    ASSERT_TRUE(graph.ok()) << file << ": " << graph.error().message();
    for (std::int64_t id : kHipEngines) {
      const Error applies = registry_->find(id)->check_applicable(graph->operation_graph(), cpu_);
      ASSERT_TRUE(applies.is_bad()) << id;
      EXPECT_EQ(applies.code(), ErrorCode::NOT_SUPPORTED);
      EXPECT_NE(applies.message().find("runs on a HIP device, not on cpu"), std::string::npos) << applies.message();
    }
  }
}

TEST_F(HipEngines, TheTiledWorkspaceIsTheSplitKPartialSums) {
  Result<Graph> graph = built("matmul_bias_relu.toml");
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  const OperationGraph& og = graph->operation_graph();
  const Operation& product = og.operations()[0];
  const auto& c = product.output("C")->get_dim();
  const std::int64_t m = c[c.size() - 2], n = c[c.size() - 1];
  const Engine& tiled = *registry_->find(1001);
  auto knobs = [&](std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t threads, std::int64_t split) {
    return tiled.descriptor().resolve(
        {{"tile_m", tm}, {"tile_n", tn}, {"tile_k", tk}, {"threads_per_block", threads}, {"split_k", split}});
  };
  Result<std::int64_t> plain = tiled.estimate_workspace(og, knobs(64, 64, 16, 256, 1));
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(*plain, 0);
  Result<std::int64_t> split = tiled.estimate_workspace(og, knobs(64, 64, 16, 256, 4));
  ASSERT_TRUE(split.ok()) << split.error().message();
  EXPECT_EQ(*split, 4 * m * n * static_cast<std::int64_t>(sizeof(float)));
  // 128 x 128 elements over 64 threads is 256 accumulators a thread: not compiled.
  Result<std::int64_t> too_big = tiled.estimate_workspace(og, knobs(128, 128, 8, 64, 1));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_NE(too_big.error().message().find("128x128x8 tile, 64 threads"), std::string::npos)
      << too_big.error().message();
}

// The launch parameters are declared for the device "hip" in
// kernels/hip/tuning.toml, and the engines' knob defaults are its defaults.
TEST_F(HipEngines, KnobDefaultsAreTheTuningSpecsPortableDefaults) {
  Result<tuning::TuningSpec> spec =
      tuning::ReadTuningSpec(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "kernels/hip/tuning.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->library, "tunekit_hip");
  const std::map<std::string, std::int64_t> engine_of = {
      {"hip_matmul", 1001}, {"hip_pointwise", 1010}, {"hip_reduction", 1020}};
  ASSERT_EQ(spec->implementations.size(), engine_of.size());
  for (const tuning::TuningSpecImplementation& implementation : spec->implementations) {
    EXPECT_EQ(implementation.device, platform::DeviceKind::HIP) << implementation.name;
    const EngineDescriptor& engine = registry_->find(engine_of.at(implementation.name))->descriptor();
    for (const tuning::TuningSpecParameter& parameter : implementation.parameters) {
      const Knob* knob = engine.find_knob(parameter.member);
      ASSERT_NE(knob, nullptr) << engine.name << " has no knob " << parameter.member;
      EXPECT_EQ(knob->default_value, parameter.spec.portable_default) << engine.name << " " << parameter.member;
    }
  }
  for (const tuning::KernelTuningKey& key : spec->keys()) EXPECT_EQ(key.device, platform::DeviceKind::HIP);
}

// Every engine that applies, on every sample graph's shape sets, against the
// CPU reference engines, on the GPU.
TEST_F(HipEngines, AgreeWithTheCpuReferenceOnEverySampleGraph) {
  const platform::HipProbe probe = platform::probe_hip_devices();
  if (probe.devices.empty()) GTEST_SKIP() << probe.reason;
  Result<std::unique_ptr<platform::Device>> gpu = platform::open_hip_device(0);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message();
  auto registry = std::make_shared<EngineRegistry>();
  ASSERT_TRUE(cpu::register_reference_engines(*registry).is_good());
  ASSERT_TRUE(load_engine_plugins({TUNEKIT_HIP_PLUGIN}, *registry).at(0).loaded);
  std::shared_ptr<const EngineRegistry> shared = registry;
  auto gpu_handle = std::move(Handle::create(**gpu, shared)).value();
  auto cpu_handle = std::move(Handle::create(cpu_, shared)).value();
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sample(""))) {
    if (entry.path().extension() != ".toml") continue;
    Result<GraphFile> file = read_graph_file(entry.path());
    ASSERT_TRUE(file.ok()) << file.error().message();
    for (std::size_t set = 0; set < std::max<std::size_t>(1, file->shape_sets.size()); ++set) {
      Result<Graph> graph = make_graph(*file, file->shape_sets.empty() ? std::nullopt : std::optional(set));
      ASSERT_TRUE(graph.ok());
      ASSERT_TRUE(graph->build_operation_graph(gpu_handle.get()).is_good());
      const OperationGraph& og = graph->operation_graph();
      // Inputs random in [-1, 1), on the host and on the GPU.
      auto host = allocate_graph_buffers(og, cpu_, 0, std::int64_t{1} << 32);
      auto device = allocate_graph_buffers(og, **gpu, 0, std::int64_t{1} << 32);
      ASSERT_TRUE(host.ok() && device.ok());
      std::mt19937 random(5);
      std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
      for (const Tensor& t : og.tensors()) {
        if (t->get_is_virtual()) continue;
        float* data = static_cast<float*>(host->pack.at(t->get_uid()));
        const std::int64_t count = t->span_elements().value();
        for (std::int64_t i = 0; i < count; ++i) data[i] = uniform(random);
        ASSERT_TRUE((*gpu)->copy_to_device(device->pack.at(t->get_uid()), data, count * sizeof(float)).is_good());
      }
      Graph reference =
          std::move(make_graph(*file, file->shape_sets.empty() ? std::nullopt : std::optional(set))).value();
      ASSERT_TRUE(reference.build_operation_graph(cpu_handle.get()).is_good());
      const Engine* oracle = nullptr;
      for (const auto& engine : registry->engines()) {
        if (engine->descriptor().reference && engine->check_applicable(reference.operation_graph(), cpu_).is_good()) {
          oracle = engine.get();
          break;
        }
      }
      ASSERT_NE(oracle, nullptr) << entry.path().filename();
      ASSERT_TRUE(reference.create_execution_plan_ext(oracle->descriptor().id, {}).is_good());
      ASSERT_TRUE(reference.build_plans(BuildPlanPolicy::ALL).is_good());
      std::vector<std::byte> host_workspace(static_cast<std::size_t>(reference.get_workspace_size()) + 1);
      ASSERT_TRUE(reference.execute(cpu_handle.get(), host->pack, host_workspace.data()).is_good());
      for (std::int64_t id : kHipEngines) {
        if (registry->find(id)->check_applicable(og, **gpu).is_bad()) continue;
        Graph candidate =
            std::move(make_graph(*file, file->shape_sets.empty() ? std::nullopt : std::optional(set))).value();
        ASSERT_TRUE(candidate.build_operation_graph(gpu_handle.get()).is_good());
        ASSERT_TRUE(candidate.create_execution_plan_ext(id, {}).is_good());
        ASSERT_TRUE(candidate.build_plans(BuildPlanPolicy::ALL).is_good());
        auto workspace = (*gpu)->allocate(static_cast<std::size_t>(candidate.get_workspace_size()) + 1);
        ASSERT_TRUE(workspace.ok());
        const Error ran = candidate.execute(gpu_handle.get(), device->pack, workspace->data());
        ASSERT_TRUE(ran.is_good()) << entry.path().filename() << " engine " << id << ": " << ran.message();
        ASSERT_TRUE(gpu_handle->stream().synchronize().is_good());
        for (const Operation& op : og.operations()) {
          for (const auto& [port, tensor] : op.outputs) {
            if (tensor->get_is_virtual()) continue;
            const std::int64_t count = tensor->span_elements().value();
            std::vector<float> back(static_cast<std::size_t>(count));
            ASSERT_TRUE(
                (*gpu)->copy_to_host(back.data(), device->pack.at(tensor->get_uid()), count * sizeof(float)).is_good());
            const core::ElementComparison comparison =
                core::compare_elements(DataType::FLOAT, host->pack.at(tensor->get_uid()), back.data(), count,
                                       core::engine_tolerance(DataType::FLOAT));
            EXPECT_TRUE(comparison.agrees())
                << entry.path().filename() << " set " << set << " engine " << id << ": "
                << core::describe_mismatch(comparison, core::engine_tolerance(DataType::FLOAT));
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace tunekit::graph
