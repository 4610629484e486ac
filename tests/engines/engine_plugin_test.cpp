// Engine plugins: the test plugin loads into a registry beside the CPU
// engines and its engine runs; plugins built for another ABI, whose engines
// clash, that refuse, or that are not shared libraries at all are refused
// with their reasons, leave the registry as it was, and the others load.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <random>

#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/graph/engine_plugin.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

TEST(EnginePlugins, APluginLoadsBesideTheCpuEnginesAndItsEngineRuns) {
  auto registry = std::make_shared<EngineRegistry>();
  ASSERT_TRUE(register_cpu_engines(*registry).is_good());
  const std::size_t before = registry->size();
  const std::vector<EnginePluginLoad> loads = load_engine_plugins({TUNEKIT_TEST_PLUGIN_GOOD}, *registry);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_TRUE(loads[0].loaded) << loads[0].reason;
  EXPECT_EQ(loads[0].engines_added, 1u);
  EXPECT_EQ(registry->size(), before + 1);
  ASSERT_NE(registry->find(7001), nullptr);
  EXPECT_EQ(registry->origin(7001)->provider, "test-plugin");
  EXPECT_EQ(registry->origin(7001)->catalogue_version, "test-plugin-1");

  platform::CpuDevice device;
  auto handle = std::move(Handle::create(device, registry)).value();
  Graph graph;
  Tensor a = graph.tensor(TensorAttributes().set_uid(1).set_dim({3, 4}));
  Tensor b = graph.tensor(TensorAttributes().set_uid(2).set_dim({4, 5}));
  graph.matmul(a, b)->set_output(true).set_uid(3);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plan_ext(7001).is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(12), y(20), out(15, std::nanf(""));
  for (float& v : x) v = u(rng);
  for (float& v : y) v = u(rng);
  ASSERT_TRUE(graph.execute(handle.get(), {{1, x.data()}, {2, y.data()}, {3, out.data()}}, nullptr).is_good());
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      double sum = 0;
      for (int p = 0; p < 4; ++p) sum += static_cast<double>(x[i * 4 + p]) * y[p * 5 + j];
      EXPECT_NEAR(out[i * 5 + j], sum, 1e-5);
    }
  }
}

TEST(EnginePlugins, BadPluginsAreRefusedWithTheirReasonAndTheOthersLoad) {
  const std::string not_a_library = ::testing::TempDir() + "tunekit_not_a_plugin.so";
  std::ofstream(not_a_library) << "not an ELF file\n";
  EngineRegistry registry;
  ASSERT_TRUE(register_cpu_engines(registry).is_good());
  const std::size_t before = registry.size();
  const std::vector<EnginePluginLoad> loads =
      load_engine_plugins({TUNEKIT_TEST_PLUGIN_WRONG_ABI, TUNEKIT_TEST_PLUGIN_CLASH, TUNEKIT_TEST_PLUGIN_FAILS,
                           not_a_library, "/nonexistent/plugin.so", TUNEKIT_TEST_PLUGIN_GOOD},
                          registry);
  ASSERT_EQ(loads.size(), 6u);
  EXPECT_EQ(loads[0].reason, fmt::format("was built for engine plugin ABI {}, this program has ABI {}",
                                        kEnginePluginAbiVersion + 998, kEnginePluginAbiVersion));
  EXPECT_EQ(loads[1].reason, "failed to register: engine registry: engine id 100 ('CPU_MATMUL_TUNEKIT') is already registered");
  EXPECT_EQ(loads[2].reason, "failed to register: the test plugin refuses on purpose");
  EXPECT_EQ(loads[3].reason.rfind("cannot be loaded: ", 0), 0u) << loads[3].reason;
  EXPECT_NE(loads[4].reason.find("/nonexistent/plugin.so"), std::string::npos) << loads[4].reason;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(loads[static_cast<std::size_t>(i)].loaded) << i;
  EXPECT_TRUE(loads[5].loaded) << loads[5].reason;
  EXPECT_EQ(registry.size(), before + 1);
  EXPECT_EQ(registry.find("CPU_MATMUL_TUNEKIT")->descriptor().description.find("clashes"), std::string::npos);
}

TEST(EnginePlugins, ThePathVariableListsFilesInOrderAndSkipsEmptyEntries) {
  setenv(kEnginePluginPathVariable, "/a/one.so::/b/two.so:", 1);
  EXPECT_EQ(engine_plugin_path(), (std::vector<std::string>{"/a/one.so", "/b/two.so"}));
  unsetenv(kEnginePluginPathVariable);
  EXPECT_TRUE(engine_plugin_path().empty());
}

}  // namespace
}  // namespace tunekit::engines
