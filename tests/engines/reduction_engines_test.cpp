// The CPU reduction engines (tunekit's two splits, oneDNN's) against a
// double-precision reference for every mode and for rows, columns, a middle
// dim and everything at once; outputs poisoned first; reduced dims that are
// not consecutive are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/oracle_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

class ReductionEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(register_cpu_engines(*registry).is_good());
    registry_ = registry;
    handle_ = std::move(Handle::create(device_, registry_)).value();
  }

  static void build(Graph& graph, const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y,
                    ReductionMode mode) {
    Operation op;
    op.kind = OperationKind::REDUCTION;
    op.inputs = {{"X", graph.tensor(TensorAttributes().set_uid(1).set_dim(x))}};
    op.outputs = {{"Y", graph.tensor(TensorAttributes().set_uid(2).set_dim(y))}};
    op.attributes = {{"mode", std::string(to_string(mode))}};
    graph.add_operation(std::move(op));
  }

  void check(std::int64_t engine, const std::vector<std::int64_t>& xd, const std::vector<std::int64_t>& yd,
             ReductionMode mode, std::int64_t threads) {
    SCOPED_TRACE(registry_->find(engine)->descriptor().name + " " + std::string(to_string(mode)) + " threads " +
                 std::to_string(threads) + " of " + std::to_string(xd.size()) + "-d X");
    std::int64_t count = 1, outputs = 1;
    for (std::int64_t d : xd) count *= d;
    for (std::int64_t d : yd) outputs *= d;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(count));
    // Products of values near 1 stay finite.
    for (float& v : x) v = mode == ReductionMode::PROD ? 1.0f + 0.01f * u(rng) : u(rng);
    Graph graph;
    build(graph, xd, yd, mode);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    std::map<std::string, KnobValue> knobs;  // the oracle has no thread count
    if (registry_->find(engine)->descriptor().find_knob("threads") != nullptr) knobs["threads"] = threads;
    const Error created = graph.create_execution_plan_ext(engine, knobs);
    ASSERT_TRUE(created.is_good()) << created.message();
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    std::vector<float> y(static_cast<std::size_t>(outputs), std::nanf(""));
    const Error executed = graph.execute(handle_.get(), {{1, x.data()}, {2, y.data()}}, workspace.data());
    ASSERT_TRUE(executed.is_good()) << executed.message();
    // The reference: every X element adds to the Y element of its kept coordinates.
    std::vector<double> expected(static_cast<std::size_t>(outputs),
                                 mode == ReductionMode::MAX   ? -HUGE_VAL
                                 : mode == ReductionMode::MIN ? HUGE_VAL
                                 : mode == ReductionMode::PROD ? 1.0
                                                               : 0.0);
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t rest = i, out = 0, out_stride = 1;
      for (std::size_t d = xd.size(); d-- > 0;) {
        const std::int64_t coordinate = rest % xd[d];
        rest /= xd[d];
        if (yd[d] != 1) out += coordinate * out_stride;
        out_stride *= yd[d];
      }
      double& e = expected[static_cast<std::size_t>(out)];
      const double v = x[static_cast<std::size_t>(i)];
      switch (mode) {
        case ReductionMode::MAX: e = std::max(e, v); break;
        case ReductionMode::MIN: e = std::min(e, v); break;
        case ReductionMode::PROD: e *= v; break;
        case ReductionMode::NORM2: e += v * v; break;
        default: e += v; break;
      }
    }
    const double reduced = static_cast<double>(count / outputs);
    for (std::int64_t o = 0; o < outputs; ++o) {
      double e = expected[static_cast<std::size_t>(o)];
      if (mode == ReductionMode::MEAN) e /= reduced;
      if (mode == ReductionMode::NORM2) e = std::sqrt(e);
      ASSERT_NEAR(y[static_cast<std::size_t>(o)], e, 1e-5 * std::sqrt(reduced) * std::max(1.0, std::fabs(e))) << "output " << o;
    }
  }

  platform::CpuDevice device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<Handle> handle_;
};

TEST_F(ReductionEngines, EveryEngineAndModeMatchesTheDoubleReference) {
  struct Shape {
    std::vector<std::int64_t> x, y;
  };
  const std::vector<Shape> shapes{{{13, 1000}, {13, 1}},   {{300, 17}, {1, 17}},      {{4, 50, 6}, {4, 1, 6}},
                                  {{2, 3, 500}, {1, 1, 1}}, {{7, 9, 5}, {7, 1, 1}}};
  for (const Shape& s : shapes) {
    for (ReductionMode mode : {ReductionMode::SUM, ReductionMode::MEAN, ReductionMode::MAX, ReductionMode::MIN,
                               ReductionMode::PROD, ReductionMode::NORM2}) {
      for (std::int64_t id : {kReductionTunekitEngine, kReductionTunekitSplitEngine, kReductionOnednnEngine}) {
        check(id, s.x, s.y, mode, 1);
        check(id, s.x, s.y, mode, 2);
      }
      check(kDoubleOracleEngine, s.x, s.y, mode, 1);
    }
  }
}

TEST_F(ReductionEngines, ReducedDimsThatAreNotConsecutiveAreRefused) {
  Graph graph;
  build(graph, {4, 5, 6}, {1, 5, 1}, ReductionMode::SUM);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  for (std::int64_t id : {kReductionTunekitEngine, kReductionTunekitSplitEngine, kReductionOnednnEngine}) {
    EXPECT_EQ(registry_->find(id)->check_applicable(graph.operation_graph(), device_).message(),
              "the reduced dims must be consecutive");
  }
}

// The oracle of autotune's result check runs the graph when asked to, yet no
// heuristic lists it, so autotune never times it.
TEST_F(ReductionEngines, TheDoubleOracleAppliesButIsNeverACandidate) {
  const graph::Engine* oracle = registry_->find(kDoubleOracleEngine);
  ASSERT_NE(oracle, nullptr);
  EXPECT_TRUE(oracle->descriptor().reference);
  EXPECT_TRUE(oracle->descriptor().oracle_only);
  Graph graph;
  build(graph, {16, 40}, {16, 1}, ReductionMode::SUM);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  EXPECT_TRUE(oracle->check_applicable(graph.operation_graph(), device_).is_good());
  std::vector<EngineConfigInfo> configs;
  ASSERT_TRUE(graph.get_engine_configs(configs, {HeuristicMode::A, HeuristicMode::FALLBACK}).is_good());
  ASSERT_FALSE(configs.empty());
  for (const EngineConfigInfo& config : configs) EXPECT_NE(config.engine_id, kDoubleOracleEngine);
  // A float pointwise graph is not one of its patterns (the reference engines run those).
  Graph pointwise;
  Operation op;
  op.kind = OperationKind::POINTWISE;
  op.inputs = {{"IN_0", pointwise.tensor(TensorAttributes().set_uid(1).set_dim({4, 4}))}};
  op.outputs = {{"OUT_0", pointwise.tensor(TensorAttributes().set_uid(2).set_dim({4, 4}))}};
  op.attributes = {{"mode", std::string("relu")}};
  pointwise.add_operation(std::move(op));
  ASSERT_TRUE(pointwise.build_operation_graph(handle_.get()).is_good());
  const Error refused = oracle->check_applicable(pointwise.operation_graph(), device_);
  EXPECT_EQ(refused.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_NE(refused.message().find("layernorm, rmsnorm, softmax or reduction"), std::string::npos) << refused.message();
}

}  // namespace
}  // namespace tunekit::engines
