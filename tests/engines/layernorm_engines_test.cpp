// The CPU layer-normalization engines (tunekit's two-pass and shifted
// one-pass on every instruction-set path this processor runs, oneDNN's) against a double-precision reference on random rows,
// with a large common offset (where an unshifted one-pass variance would
// cancel), the statistics outputs where an engine gives them, outputs
// poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine_test_fixture.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

struct NormCase {
  std::int64_t rows, width;
  float offset = 0;
  bool statistics = false;
};

class LayerNormEngines : public CpuEngineTest {
 protected:
  // uids: X 1, SCALE 2, BIAS 3, Y 4, MEAN 5, INV_VARIANCE 6.
  static void build(Graph& graph, const NormCase& c) {
    Operation op;
    op.kind = OperationKind::LAYERNORM;
    op.inputs = {{"X", graph.tensor(TensorAttributes().set_uid(1).set_dim({c.rows, c.width}))},
                 {"SCALE", graph.tensor(TensorAttributes().set_uid(2).set_dim({1, c.width}))},
                 {"BIAS", graph.tensor(TensorAttributes().set_uid(3).set_dim({1, c.width}))}};
    op.outputs = {{"Y", graph.tensor(TensorAttributes().set_uid(4).set_dim({c.rows, c.width}))}};
    if (c.statistics) {
      op.outputs["MEAN"] = graph.tensor(TensorAttributes().set_uid(5).set_dim({c.rows, 1}));
      op.outputs["INV_VARIANCE"] = graph.tensor(TensorAttributes().set_uid(6).set_dim({c.rows, 1}));
    }
    op.attributes = {{"epsilon", 1e-5}};
    graph.add_operation(std::move(op));
  }

  void check(std::int64_t engine, const NormCase& c, const std::map<std::string, KnobValue>& knobs) {
    SCOPED_TRACE(registry_->find(engine)->descriptor().name + " " + std::to_string(c.rows) + " x " +
                 std::to_string(c.width) + " offset " + std::to_string(c.offset));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(c.rows * c.width)), scale(static_cast<std::size_t>(c.width)),
        bias(static_cast<std::size_t>(c.width));
    for (float& v : x) v = c.offset + u(rng);
    for (float& v : scale) v = 1.0f + 0.5f * u(rng);
    for (float& v : bias) v = u(rng);
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const Error created = graph.create_execution_plan_ext(engine, knobs);
    ASSERT_TRUE(created.is_good()) << created.message();
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    std::vector<float> y(x.size(), std::nanf("")), mean(static_cast<std::size_t>(c.rows), std::nanf("")),
        inv(static_cast<std::size_t>(c.rows), std::nanf(""));
    VariantPack pack{{1, x.data()}, {2, scale.data()}, {3, bias.data()}, {4, y.data()}};
    if (c.statistics) pack[5] = mean.data(), pack[6] = inv.data();
    const Error executed = graph.execute(handle_.get(), pack, workspace.data());
    ASSERT_TRUE(executed.is_good()) << executed.message();
    for (std::int64_t r = 0; r < c.rows; ++r) {
      double m = 0, v = 0;
      for (std::int64_t i = 0; i < c.width; ++i) m += x[static_cast<std::size_t>(r * c.width + i)];
      m /= static_cast<double>(c.width);
      for (std::int64_t i = 0; i < c.width; ++i) {
        const double d = x[static_cast<std::size_t>(r * c.width + i)] - m;
        v += d * d;
      }
      v /= static_cast<double>(c.width);
      const double inv_std = 1.0 / std::sqrt(v + 1e-5);
      for (std::int64_t i = 0; i < c.width; ++i) {
        const std::size_t at = static_cast<std::size_t>(r * c.width + i);
        const double expected = (x[at] - m) * inv_std * scale[static_cast<std::size_t>(i)] + bias[static_cast<std::size_t>(i)];
        // The offset costs its own rounding of x: float holds x - offset to
        // about offset * 2^-24, which the normalization scales by inv_std.
        const double tolerance = 2e-5 + 4 * (1 + c.offset) * 6e-8 * inv_std;
        ASSERT_NEAR(y[at], expected, tolerance) << "row " << r << " element " << i;
      }
      if (c.statistics) {
        EXPECT_NEAR(mean[static_cast<std::size_t>(r)], m, 1e-5 * (1 + c.offset)) << "row " << r;
        EXPECT_NEAR(inv[static_cast<std::size_t>(r)], inv_std, 1e-3 * inv_std) << "row " << r;
      }
    }
  }

};

constexpr NormCase kCases[] = {{7, 768}, {3, 4096, 1000.0f}, {5, 33, 50.0f}, {1, 8}};

TEST_F(LayerNormEngines, TunekitMatchesTheDoubleReferenceOnEveryInstructionSetPathAlsoAfterALargeOffset) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const NormCase& c : kCases) {
      for (std::int64_t id : {kLayerNormTunekitEngine, kLayerNormTunekitOnePassEngine}) {
        check(id, c, {});
        check(id, c, {{"threads", std::int64_t{1}}});
      }
    }
  }
}

TEST_F(LayerNormEngines, OnednnMatchesTheDoubleReferenceAlsoAfterALargeOffset) {
  for (const NormCase& c : kCases) {
    check(kLayerNormOnednnEngine, c, {});
    check(kLayerNormOnednnEngine, c, {{"threads", std::int64_t{1}}});
  }
}

TEST_F(LayerNormEngines, TunekitWritesTheStatisticsAndOnednnRefusesToWithTheReason) {
  const NormCase c{6, 300, 10.0f, true};
  check(kLayerNormTunekitEngine, c, {});
  check(kLayerNormTunekitOnePassEngine, c, {});
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const Error applicable = registry_->find(kLayerNormOnednnEngine)->check_applicable(graph.operation_graph(), device_);
  EXPECT_EQ(applicable.message(), "the statistics outputs (oneDNN's inference primitive gives none)");
}

}  // namespace
}  // namespace tunekit::engines
