// The CPU softmax engines (tunekit's on every instruction-set path this
// processor runs, oneDNN's) against a double-precision reference: random
// rows of a wide range (exponents far below the row's maximum underflow),
// widths that are and are not multiples of the vector lanes, in place and
// not, masked with -inf, along the last dim and (oneDNN) a middle one;
// outputs poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "engine_test_fixture.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/oracle_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

class SoftmaxEngines : public CpuEngineTest {
 protected:
  // uids: X 1, Y 2 (the same tensor's buffer when in place).
  static void build(Graph& graph, const std::vector<std::int64_t>& dims, std::optional<std::int64_t> axis) {
    Operation op;
    op.kind = OperationKind::SOFTMAX;
    op.inputs = {{"X", graph.tensor(TensorAttributes().set_uid(1).set_dim(dims))}};
    op.outputs = {{"Y", graph.tensor(TensorAttributes().set_uid(2).set_dim(dims))}};
    if (axis) op.attributes = {{"axis", *axis}};
    graph.add_operation(std::move(op));
  }

  // `spread`: inputs uniform in [-spread, spread].
  void check(std::int64_t engine, const std::vector<std::int64_t>& dims, std::optional<std::int64_t> axis,
             float spread, std::int64_t threads, bool in_place = false, bool masked = false) {
    SCOPED_TRACE(name_of(engine) + " " + std::to_string(dims.size()) + "-d, last dim " + std::to_string(dims.back()) +
                 " spread " + std::to_string(spread) + " threads " + std::to_string(threads) +
                 (in_place ? " in place" : "") + (masked ? " masked" : ""));
    std::int64_t count = 1;
    for (std::int64_t d : dims) count *= d;
    const auto rank = static_cast<std::int64_t>(dims.size());
    const std::int64_t along = axis ? (*axis < 0 ? *axis + rank : *axis) : rank - 1;
    std::int64_t inner = 1;
    for (std::int64_t i = along + 1; i < rank; ++i) inner *= dims[static_cast<std::size_t>(i)];
    const std::int64_t width = dims[static_cast<std::size_t>(along)];

    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(-spread, spread);
    std::vector<float> x(static_cast<std::size_t>(count));
    for (float& v : x) v = u(rng);
    // An attention mask: every third element -inf, whose probability is 0.
    if (masked) {
      for (std::size_t k = 1; k < x.size(); k += 3) x[k] = -INFINITY;
    }
    const std::vector<float> input = x;
    std::vector<float> y(x.size(), std::nanf(""));
    Graph graph;
    build(graph, dims, axis);
    float* out = in_place ? x.data() : y.data();
    std::map<std::string, KnobValue> knobs;  // the oracle has no thread count
    if (registry_->find(engine)->descriptor().find_knob("threads") != nullptr) knobs["threads"] = threads;
    const Error ran = run(graph, engine, knobs, {{1, x.data()}, {2, out}});
    ASSERT_TRUE(ran.is_good()) << ran.message();
    for (std::int64_t o = 0; o < count / (width * inner); ++o) {
      for (std::int64_t j = 0; j < inner; ++j) {
        auto at = [&](std::int64_t i) { return static_cast<std::size_t>((o * width + i) * inner + j); };
        double largest = -INFINITY, total = 0;
        for (std::int64_t i = 0; i < width; ++i) largest = std::max(largest, static_cast<double>(input[at(i)]));
        for (std::int64_t i = 0; i < width; ++i) total += std::exp(input[at(i)] - largest);
        double sum = 0;
        for (std::int64_t i = 0; i < width; ++i) {
          const double expected = std::exp(input[at(i)] - largest) / total;
          // Relative to the value; a value below 2^-126 (the smallest normal
          // float) may be flushed to 0.
          ASSERT_NEAR(out[at(i)], expected, 1e-5 * expected + 1.2e-38) << "row " << o << " element " << i;
          sum += out[at(i)];
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << o;
      }
    }
  }
};

TEST_F(SoftmaxEngines, TunekitMatchesTheDoubleReferenceOnEveryInstructionSetPath) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    check(kSoftmaxTunekitEngine, {12, 16, 128}, std::nullopt, 8.0f, 2);
    check(kSoftmaxTunekitEngine, {5, 33}, std::nullopt, 3.0f, 1);
    check(kSoftmaxTunekitEngine, {3, 1000}, -1, 100.0f, 2);  // most terms underflow
    check(kSoftmaxTunekitEngine, {4, 7}, 1, 0.5f, 1, true);
    check(kSoftmaxTunekitEngine, {6, 1}, std::nullopt, 1.0f, 2);
    check(kSoftmaxTunekitEngine, {2, 50, 1}, 1, 5.0f, 1);  // followed by a dim of 1: still rows
    check(kSoftmaxTunekitEngine, {8, 77}, std::nullopt, 4.0f, 2, false, true);
  }
}

TEST_F(SoftmaxEngines, OnednnMatchesTheDoubleReferenceAlongAnyAxis) {
  check(kSoftmaxOnednnEngine, {12, 16, 128}, std::nullopt, 8.0f, 2);
  check(kSoftmaxOnednnEngine, {5, 33}, std::nullopt, 3.0f, 1);
  check(kSoftmaxOnednnEngine, {3, 1000}, -1, 100.0f, 2);
  check(kSoftmaxOnednnEngine, {4, 50, 3}, 1, 5.0f, 2);
  check(kSoftmaxOnednnEngine, {4, 50, 3}, 0, 5.0f, 1);
  check(kSoftmaxOnednnEngine, {8, 77}, std::nullopt, 4.0f, 2, false, true);
}

TEST_F(SoftmaxEngines, TheDoubleOracleMatchesTheDoubleReferenceAlongAnyAxis) {
  check(kDoubleOracleEngine, {12, 16, 128}, std::nullopt, 8.0f, 1);
  check(kDoubleOracleEngine, {3, 1000}, -1, 100.0f, 1);
  check(kDoubleOracleEngine, {4, 7}, 1, 0.5f, 1, true);
  check(kDoubleOracleEngine, {4, 50, 3}, 1, 5.0f, 1);
  check(kDoubleOracleEngine, {4, 50, 3}, 0, 5.0f, 1);
  check(kDoubleOracleEngine, {8, 77}, std::nullopt, 4.0f, 1, false, true);
}

TEST_F(SoftmaxEngines, TunekitRefusesAMiddleAxisNamingIt) {
  Graph graph;
  build(graph, {4, 50, 3}, 1);
  EXPECT_EQ(refusal(graph, kSoftmaxTunekitEngine), "only along the last dim (softmax of [4, 50, 3] along dim 1)");
  Graph other;
  build(other, {4, 50, 3}, 1);
  EXPECT_EQ(refusal(other, kSoftmaxOnednnEngine), "");
}

}  // namespace
}  // namespace tunekit::engines
