// The reference CPU engines of tunekit_cpu against double-precision
// references: naive and blocked matmul (every tile), strided operands,
// broadcasting pointwise, and a matmul + bias + relu graph with its
// intermediates in the workspace.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tunekit/cpu/engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::cpu {
namespace {

using namespace tunekit::graph;

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

class ReferenceEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(register_reference_engines(*reg).is_good());
    registry = reg;
    handle = std::move(Handle::create(device, registry)).value();
  }
  // Builds the one plan of engine with knobs and executes it.
  void run(Graph& graph, std::int64_t engine, std::map<std::string, KnobValue> knobs, const VariantPack& pack) {
    ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
    ASSERT_TRUE(graph.create_execution_plan_ext(engine, knobs).is_good());
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    ASSERT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
  }

  std::shared_ptr<const EngineRegistry> registry;
  platform::CpuDevice device;
  std::unique_ptr<Handle> handle;
};

TEST_F(ReferenceEngines, ProviderDeclaresItsCatalogue) {
  EXPECT_EQ(registry->size(), 4u);
  EXPECT_EQ(registry->origin(kMatmulBlockedEngine)->provider, "tunekit-cpu-reference");
  EXPECT_EQ(registry->origin(kMatmulBlockedEngine)->catalogue_version, "reference-1");
}

TEST_F(ReferenceEngines, AWorkspacePastSixtyFourBitsIsRefusedInsteadOfWrapping) {
  // 2^61 - 1 floats: the tensor's bytes fit in int64, its aligned workspace slot does not.
  Graph graph;
  Tensor x = graph.tensor(TensorAttributes().set_name("X").set_uid(1).set_dim({(std::int64_t{1} << 61) - 1}));
  Tensor hidden = graph.pointwise(x, PointwiseMode::NEG, "neg");
  graph.pointwise(hidden, PointwiseMode::NEG, "neg2")->set_output(true);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  const Error added = graph.add_engine(kSequentialEngine);
  EXPECT_EQ(added.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(added.message(), "add_engine: the virtual tensors up to " + hidden->describe() +
                                 " need more than 9223372036854775807 bytes of workspace");
}

TEST_F(ReferenceEngines, MatmulsMatchADoubleReferenceForEveryTileAndStridedB) {
  const std::int64_t m = 37, k = 29, n = 23;
  const std::vector<float> a = random_values(m * k, 1);
  const std::vector<float> b = random_values(k * n * 2, 2);  // B is strided: every other column of a k x 2n buffer
  std::vector<double> expected(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * 2 * n + 2 * j];
      expected[static_cast<std::size_t>(i * n + j)] = sum;
    }
  }
  struct Case {
    std::int64_t engine;
    std::map<std::string, KnobValue> knobs;
  };
  const std::vector<Case> cases{{kMatmulNaiveEngine, {}},
                                {kMatmulBlockedEngine, {{"tile", std::int64_t{8}}}},
                                {kMatmulBlockedEngine, {{"tile", std::int64_t{16}}}},
                                {kMatmulBlockedEngine, {{"tile", std::int64_t{128}}}},
                                {kSequentialEngine, {{"matmul_tile", std::int64_t{0}}}},
                                {kSequentialEngine, {{"matmul_tile", std::int64_t{32}}}}};
  for (const Case& c : cases) {
    Graph graph;
    Tensor ta = graph.tensor(TensorAttributes().set_uid(1).set_dim({m, k}));
    Tensor tb = graph.tensor(TensorAttributes().set_uid(2).set_dim({k, n}).set_stride({2 * n, 2}));
    graph.matmul(ta, tb)->set_output(true).set_uid(3);
    std::vector<float> out(static_cast<std::size_t>(m * n), std::nanf(""));
    run(graph, c.engine, c.knobs, {{1, const_cast<float*>(a.data())}, {2, const_cast<float*>(b.data())}, {3, out.data()}});
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-4) << c.engine << " at " << i;
  }
}

TEST_F(ReferenceEngines, PointwiseBroadcastsSizeOneDims) {
  const std::vector<float> x = random_values(12, 3);
  const std::vector<float> bias = random_values(4, 4);
  Graph graph;
  Tensor tx = graph.tensor(TensorAttributes().set_uid(1).set_dim({3, 4}));
  Tensor tb = graph.tensor(TensorAttributes().set_uid(2).set_dim({1, 4}));
  graph.pointwise(tx, tb, PointwiseMode::SUB)->set_output(true).set_uid(3);
  std::vector<float> out(12, std::nanf(""));
  run(graph, kPointwiseEngine, {}, {{1, const_cast<float*>(x.data())}, {2, const_cast<float*>(bias.data())}, {3, out.data()}});
  for (std::size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(out[i], x[i] - bias[i % 4]);
}

TEST_F(ReferenceEngines, SequentialRunsMatmulBiasReluWithIntermediatesInTheWorkspace) {
  const std::int64_t m = 9, k = 7, n = 5;
  const std::vector<float> a = random_values(m * k, 5);
  const std::vector<float> b = random_values(k * n, 6);
  const std::vector<float> bias = random_values(n, 7);
  Graph graph;
  Tensor ta = graph.tensor(TensorAttributes().set_uid(1).set_dim({m, k}));
  Tensor tb = graph.tensor(TensorAttributes().set_uid(2).set_dim({k, n}));
  Tensor tbias = graph.tensor(TensorAttributes().set_uid(3).set_dim({1, n}));
  Tensor ab = graph.matmul(ta, tb);
  Tensor biased = graph.pointwise(ab, tbias, PointwiseMode::ADD);
  graph.pointwise(biased, PointwiseMode::RELU)->set_output(true).set_uid(4);
  std::vector<float> out(static_cast<std::size_t>(m * n), std::nanf(""));
  run(graph, kSequentialEngine, {{"matmul_tile", std::int64_t{16}}},
      {{1, const_cast<float*>(a.data())}, {2, const_cast<float*>(b.data())}, {3, const_cast<float*>(bias.data())}, {4, out.data()}});
  EXPECT_GT(graph.get_workspace_size(), 0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = bias[static_cast<std::size_t>(j)];
      for (std::int64_t p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      EXPECT_NEAR(out[static_cast<std::size_t>(i * n + j)], std::max(sum, 0.0), 1e-5);
    }
  }
}

TEST_F(ReferenceEngines, SingleOperationEnginesDoNotApplyToOtherGraphs) {
  Graph graph;
  Tensor tx = graph.tensor(TensorAttributes().set_uid(1).set_dim({3, 4}));
  graph.pointwise(tx, PointwiseMode::RELU)->set_output(true).set_uid(2);
  ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
  std::vector<EngineConfigInfo> configs;
  ASSERT_TRUE(graph.get_engine_configs(configs).is_good());
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].engine_name, "cpu_pointwise");
  EXPECT_EQ(configs[1].engine_name, "cpu_graph_sequential");
}

}  // namespace
}  // namespace tunekit::cpu
