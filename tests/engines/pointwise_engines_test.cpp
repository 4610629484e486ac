// The CPU pointwise engines against a double-precision evaluation of the
// graph on random inputs, on every instruction-set path this processor
// runs: a bias and GELU chain, a graph that reads one tensor twice (x *
// sigmoid(x)), a scalar and a row broadcast, more than one block with a
// ragged end, on one and two threads; outputs poisoned first. Broadcasts
// along a middle dim are refused with the reason. oneDNN's engine on the
// chains it fuses, and its reasons for the graphs it does not.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "engine_test_fixture.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

double evaluate(PointwiseMode mode, double x, double y) {
  switch (mode) {
    case PointwiseMode::IDENTITY: return x;
    case PointwiseMode::NEG: return -x;
    case PointwiseMode::ABS: return std::fabs(x);
    case PointwiseMode::EXP: return std::exp(x);
    case PointwiseMode::LOG: return std::log(x);
    case PointwiseMode::SQRT: return std::sqrt(x);
    case PointwiseMode::RELU: return x > 0 ? x : 0;
    case PointwiseMode::SIGMOID: return 1 / (1 + std::exp(-x));
    case PointwiseMode::TANH: return std::tanh(x);
    case PointwiseMode::GELU: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case PointwiseMode::ADD: return x + y;
    case PointwiseMode::SUB: return x - y;
    case PointwiseMode::MUL: return x * y;
    case PointwiseMode::DIV: return x / y;
    case PointwiseMode::MAX: return std::max(x, y);
    case PointwiseMode::MIN: return std::min(x, y);
  }
  return 0;
}

struct Op {
  PointwiseMode mode;
  std::string in0, in1, out;  // in1 empty for unary modes
};

struct Case {
  std::map<std::string, std::vector<std::int64_t>> tensors;  // name -> dims
  std::vector<Op> ops;
  std::string output;  // the one non-virtual output
};

class PointwiseEngines : public CpuEngineTest {
 protected:
  // The graph of a case: uids by name in order, every written tensor but
  // the output virtual.
  static Graph build(const Case& c, std::map<std::string, std::int64_t>& uids, std::map<std::string, bool>& written) {
    Graph graph;
    std::map<std::string, Tensor> tensors;
    std::int64_t next_uid = 1;
    for (const Op& op : c.ops) written[op.out] = true;
    for (const auto& [name, dims] : c.tensors) {
      TensorAttributes t;
      t.set_name(name).set_uid(next_uid).set_dim(dims);
      if (written[name] && name != c.output) t.set_is_virtual(true);
      uids[name] = next_uid++;
      tensors[name] = graph.tensor(t);
    }
    for (const Op& op : c.ops) {
      Operation o;
      o.kind = OperationKind::POINTWISE;
      o.inputs = {{"IN_0", tensors.at(op.in0)}};
      if (!op.in1.empty()) o.inputs["IN_1"] = tensors.at(op.in1);
      o.outputs = {{"OUT_0", tensors.at(op.out)}};
      o.attributes = {{"mode", std::string(to_string(op.mode))}};
      graph.add_operation(std::move(o));
    }
    return graph;
  }

  void check(std::int64_t engine, const Case& c, std::int64_t threads) {
    SCOPED_TRACE(name_of(engine) + ": " + c.output + " of " + std::to_string(c.ops.size()) + " operations, threads " +
                 std::to_string(threads));
    std::map<std::string, std::int64_t> uids;
    std::map<std::string, bool> written;
    Graph graph = build(c, uids, written);
    // Random inputs in [0.5, 2] (log and sqrt stay defined), outputs poisoned.
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    std::map<std::string, std::vector<float>> data;
    VariantPack pack;
    for (const auto& [name, dims] : c.tensors) {
      if (written[name] && name != c.output) continue;
      std::int64_t n = 1;
      for (std::int64_t d : dims) n *= d;
      std::vector<float>& values = data[name];
      values.assign(static_cast<std::size_t>(n), std::nanf(""));
      if (!written[name]) {
        for (float& v : values) v = u(rng);
      }
      pack[uids[name]] = values.data();
    }
    const Error ran = run(graph, engine, {{"threads", threads}}, pack);
    ASSERT_TRUE(ran.is_good()) << ran.message();

    // Element i of every tensor in double, broadcasting along leading dims.
    const std::vector<std::int64_t>& out_dims = c.tensors.at(c.output);
    std::int64_t elements = 1;
    for (std::int64_t d : out_dims) elements *= d;
    const std::vector<float>& got = data.at(c.output);
    for (std::int64_t i = 0; i < elements; ++i) {
      std::map<std::string, double> value;
      auto read = [&](const std::string& name) {
        if (auto it = value.find(name); it != value.end()) return it->second;
        const std::vector<float>& v = data.at(name);
        return static_cast<double>(v[static_cast<std::size_t>(i % static_cast<std::int64_t>(v.size()))]);
      };
      for (const Op& op : c.ops) value[op.out] = evaluate(op.mode, read(op.in0), op.in1.empty() ? 0 : read(op.in1));
      const double expected = value.at(c.output);
      ASSERT_NEAR(got[static_cast<std::size_t>(i)], expected, 2e-6 * (1 + std::fabs(expected))) << "element " << i;
    }
  }
};

const Case kBiasGelu{{{"X", {7, 300}}, {"B", {1, 300}}, {"T", {7, 300}}, {"Y", {7, 300}}},
                     {{PointwiseMode::ADD, "X", "B", "T"}, {PointwiseMode::GELU, "T", "", "Y"}},
                     "Y"};
// GELU of values on both sides of 0 (X - B in [-1.5, 1.5]), a ragged width.
const Case kDifferenceGelu{{{"X", {3, 1001}}, {"B", {1, 1001}}, {"T", {3, 1001}}, {"Y", {3, 1001}}},
                           {{PointwiseMode::SUB, "X", "B", "T"}, {PointwiseMode::GELU, "T", "", "Y"}},
                           "Y"};
// x * sigmoid(x) - s, then max with a row, then every unary mode once: a graph
// that reads X twice and a scalar S.
const Case kSwishAndMore{{{"X", {3, 5, 1000}},
                          {"S", {1, 1, 1}},
                          {"R", {1, 5, 1000}},
                          {"A", {3, 5, 1000}},
                          {"B", {3, 5, 1000}},
                          {"C", {3, 5, 1000}},
                          {"D", {3, 5, 1000}},
                          {"E", {3, 5, 1000}},
                          {"F", {3, 5, 1000}},
                          {"G", {3, 5, 1000}},
                          {"H", {3, 5, 1000}},
                          {"I", {3, 5, 1000}},
                          {"Y", {3, 5, 1000}}},
                         {{PointwiseMode::SIGMOID, "X", "", "A"},
                          {PointwiseMode::MUL, "X", "A", "B"},
                          {PointwiseMode::SUB, "B", "S", "C"},
                          {PointwiseMode::MAX, "C", "R", "D"},
                          {PointwiseMode::ABS, "D", "", "E"},
                          {PointwiseMode::SQRT, "E", "", "F"},
                          {PointwiseMode::EXP, "F", "", "G"},
                          {PointwiseMode::LOG, "G", "", "H"},
                          {PointwiseMode::TANH, "H", "", "I"},
                          {PointwiseMode::DIV, "I", "R", "Y"}},
                         "Y"};
const Case kOneOp{{{"X", {5001}}, {"Y", {5001}}}, {{PointwiseMode::RELU, "X", "", "Y"}}, "Y"};
const Case kMinNegIdentity{{{"X", {2, 4099}}, {"S", {1, 1}}, {"A", {2, 4099}}, {"B", {2, 4099}}, {"Y", {2, 4099}}},
                           {{PointwiseMode::MIN, "S", "X", "A"},
                            {PointwiseMode::NEG, "A", "", "B"},
                            {PointwiseMode::IDENTITY, "B", "", "Y"}},
                           "Y"};

TEST_F(PointwiseEngines, MatchTheDoubleEvaluationOnEveryInstructionSetPath) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const Case* c : {&kBiasGelu, &kDifferenceGelu, &kSwishAndMore, &kOneOp, &kMinNegIdentity}) {
      check(kPointwiseTunekitEngine, *c, 1);
      check(kPointwiseTunekitEngine, *c, 2);
    }
  }
}

TEST_F(PointwiseEngines, OnednnRunsChainsAsOnePrimitiveWithPostOpsAndRefusesOtherGraphsWithTheReason) {
  for (const Case* c : {&kBiasGelu, &kDifferenceGelu, &kSwishAndMore, &kOneOp, &kMinNegIdentity}) {
    check(kPointwiseOnednnEngine, *c, 1);
    check(kPointwiseOnednnEngine, *c, 2);
  }
  auto refused = [&](const Case& c) {
    std::map<std::string, std::int64_t> uids;
    std::map<std::string, bool> written;
    Graph graph = build(c, uids, written);
    EXPECT_TRUE(graph.validate().is_good());
    return refusal(graph, kPointwiseOnednnEngine);
  };
  EXPECT_EQ(refused({{{"X", {4, 8}}, {"T", {4, 8}}, {"Y", {4, 8}}},
                     {{PointwiseMode::EXP, "X", "", "T"}, {PointwiseMode::MUL, "T", "T", "Y"}},
                     "Y"}),
            "not a chain: an intermediate result is read other than once, by the next operation");
  EXPECT_EQ(refused({{{"X", {4, 8}}, {"B", {1, 8}}, {"T", {4, 8}}, {"Y", {4, 8}}},
                     {{PointwiseMode::EXP, "X", "", "T"}, {PointwiseMode::DIV, "B", "T", "Y"}},
                     "Y"}),
            "the previous result is the second operand of div");
  // oneDNN 2.6 applies two eltwise post-ops of one algorithm with the first
  // one's parameters (neg, then neg again through identity, came out
  // positive): such chains are refused.
  EXPECT_EQ(refused({{{"X", {4, 8}}, {"S", {1, 1}}, {"A", {4, 8}}, {"B", {4, 8}}, {"Y", {4, 8}}},
                     {{PointwiseMode::ADD, "X", "S", "A"}, {PointwiseMode::NEG, "A", "", "B"}, {PointwiseMode::NEG, "B", "", "Y"}},
                     "Y"}),
            "two eltwise_linear post-ops (oneDNN 2.6 applies the first one's parameters to both)");
}

TEST_F(PointwiseEngines, TheWorkspaceIsOneBlockPerIntermediateAndThreadAsEstimated) {
  Graph graph;
  auto x = graph.tensor(TensorAttributes().set_uid(1).set_dim({64, 64}));
  auto b = graph.tensor(TensorAttributes().set_uid(2).set_dim({1, 64}));
  auto t = graph.pointwise(x, b, PointwiseMode::ADD);
  graph.pointwise(t, PointwiseMode::RELU)->set_output(true).set_uid(3);
  ASSERT_TRUE(graph.validate().is_good());
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const auto engine = registry_->find(kPointwiseTunekitEngine);
  for (std::int64_t threads : {1, 2, 3}) {
    const KnobValues knobs = engine->descriptor().resolve({{"threads", threads}});
    EXPECT_EQ(engine->estimate_workspace(graph.operation_graph(), knobs).value(), threads * 2048 * 4);
    auto kernel = engine->compile(graph.operation_graph(), knobs, device_);
    ASSERT_TRUE(kernel.ok()) << kernel.error().message();
    EXPECT_EQ((*kernel)->workspace_size(), threads * 2048 * 4);
  }
}

TEST_F(PointwiseEngines, ABroadcastAlongAMiddleDimIsRefusedNamingTheTensor) {
  Graph graph;
  auto x = graph.tensor(TensorAttributes().set_name("X").set_uid(1).set_dim({4, 5, 6}));
  auto b = graph.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({4, 1, 6}));
  graph.pointwise(x, b, PointwiseMode::ADD)->set_output(true).set_uid(3);
  ASSERT_TRUE(graph.validate().is_good());
  EXPECT_EQ(refusal(graph, kPointwiseTunekitEngine),
            "tensor 'B' (uid 2) broadcasts other than along its leading dims against [4, 5, 6]");
}

}  // namespace
}  // namespace tunekit::engines
