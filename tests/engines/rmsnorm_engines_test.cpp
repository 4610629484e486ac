// The CPU RMS-normalization engines (tunekit's on every instruction-set path
// this processor runs, oneDNN's two-primitive composition) against a
// double-precision reference on random rows, with and without INV_RMS,
// outputs poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine_test_fixture.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

struct RmsCase {
  std::int64_t rows, width;
  float offset = 0;
  bool inv_rms = false;
};

class RmsNormEngines : public CpuEngineTest {
 protected:
  // uids: X 1, SCALE 2, Y 3, INV_RMS 4.
  static void build(Graph& graph, const RmsCase& c) {
    Operation op;
    op.kind = OperationKind::RMSNORM;
    op.inputs = {{"X", graph.tensor(TensorAttributes().set_uid(1).set_dim({c.rows, c.width}))},
                 {"SCALE", graph.tensor(TensorAttributes().set_uid(2).set_dim({1, c.width}))}};
    op.outputs = {{"Y", graph.tensor(TensorAttributes().set_uid(3).set_dim({c.rows, c.width}))}};
    if (c.inv_rms) op.outputs["INV_RMS"] = graph.tensor(TensorAttributes().set_uid(4).set_dim({c.rows, 1}));
    op.attributes = {{"epsilon", 1e-6}};
    graph.add_operation(std::move(op));
  }

  void check(std::int64_t engine, const RmsCase& c, std::int64_t threads) {
    SCOPED_TRACE(name_of(engine) + " " + std::to_string(c.rows) + " x " + std::to_string(c.width) + " offset " +
                 std::to_string(c.offset) + " threads " + std::to_string(threads));
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(c.rows * c.width)), scale(static_cast<std::size_t>(c.width));
    for (float& v : x) v = c.offset + u(rng);
    for (float& v : scale) v = 1.0f + 0.5f * u(rng);
    std::vector<float> y(x.size(), std::nanf("")), inv(static_cast<std::size_t>(c.rows), std::nanf(""));
    Graph graph;
    build(graph, c);
    VariantPack pack{{1, x.data()}, {2, scale.data()}, {3, y.data()}};
    if (c.inv_rms) pack[4] = inv.data();
    const Error ran = run(graph, engine, {{"threads", threads}}, pack);
    ASSERT_TRUE(ran.is_good()) << ran.message();
    for (std::int64_t r = 0; r < c.rows; ++r) {
      double squares = 0;
      for (std::int64_t i = 0; i < c.width; ++i) {
        const double v = x[static_cast<std::size_t>(r * c.width + i)];
        squares += v * v;
      }
      const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(c.width) + 1e-6);
      for (std::int64_t i = 0; i < c.width; ++i) {
        const std::size_t at = static_cast<std::size_t>(r * c.width + i);
        const double expected = x[at] * inv_rms * scale[static_cast<std::size_t>(i)];
        ASSERT_NEAR(y[at], expected, 1e-5 * (1.0 + std::fabs(expected))) << "row " << r << " element " << i;
      }
      if (c.inv_rms) {
        EXPECT_NEAR(inv[static_cast<std::size_t>(r)], inv_rms, 1e-5 * inv_rms) << "row " << r;
      }
    }
  }
};

const RmsCase kCases[] = {{1, 4096}, {7, 768, 0, true}, {3, 33, 20.0f, true}, {5, 1}, {2, 4097, -3.0f}};

TEST_F(RmsNormEngines, TunekitMatchesTheDoubleReferenceOnEveryInstructionSetPath) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const RmsCase& c : kCases) {
      check(kRmsNormTunekitEngine, c, 1);
      check(kRmsNormTunekitEngine, c, 2);
    }
  }
}

TEST_F(RmsNormEngines, OnednnMatchesTheDoubleReferenceAndWritesInvRmsWhenAsked) {
  for (const RmsCase& c : kCases) {
    if (c.width == 1) continue;  // refused, below
    check(kRmsNormOnednnEngine, c, 1);
    check(kRmsNormOnednnEngine, c, 2);
  }
  Graph graph;
  build(graph, RmsCase{5, 1});
  EXPECT_EQ(refusal(graph, kRmsNormOnednnEngine), "rows of one element (oneDNN's reduction refuses to reduce no dim)");
}

TEST_F(RmsNormEngines, OnednnKeepsInvRmsInItsWorkspaceWhenTheGraphDoesNotAskForIt) {
  const auto engine = registry_->find(kRmsNormOnednnEngine);
  Graph without, with;
  build(without, RmsCase{100, 64});
  build(with, RmsCase{100, 64, 0, true});
  ASSERT_TRUE(without.build_operation_graph(handle_.get()).is_good());
  ASSERT_TRUE(with.build_operation_graph(handle_.get()).is_good());
  const KnobValues knobs = engine->descriptor().resolve({});
  const std::int64_t extra = engine->estimate_workspace(without.operation_graph(), knobs).value() -
                             engine->estimate_workspace(with.operation_graph(), knobs).value();
  EXPECT_EQ(extra, 448);  // 100 floats, rounded up to 64 bytes
  // What compile reports is what the estimate said.
  auto kernel = engine->compile(without.operation_graph(), knobs, device_);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  EXPECT_EQ((*kernel)->workspace_size(), engine->estimate_workspace(without.operation_graph(), knobs).value());
}

}  // namespace
}  // namespace tunekit::engines
