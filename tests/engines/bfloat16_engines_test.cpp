// bfloat16 graphs. Matmuls: the engines that run them (tunekit's Gemm
// through widening, oneDNN where it has an implementation for this
// processor, the double oracle) against a double-precision product of the
// bfloat16 inputs, rounded once; the float-only libraries refusing them with
// the reason; and autotune choosing among them with the oracle as the result
// check's truth. Pointwise graphs: tunekit's engine (inputs widened and
// outputs narrowed block by block) and the oracle against a double
// evaluation, on every instruction-set path, with broadcasts, two outputs
// and more than one block.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "engine_test_fixture.hpp"
#include "matmul_test_support.hpp"
#include "tunekit/core/half_precision.hpp"
#include "tunekit/engines/blis_engines.hpp"
#include "tunekit/engines/libxsmm_engines.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/openblas_engines.hpp"
#include "tunekit/engines/oracle_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

// Random values in [-1, 1) rounded to bfloat16 (bit patterns).
std::vector<std::uint16_t> random_bfloat16(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = core::float_to_bfloat16(u(rng));
  return v;
}

double value(std::uint16_t bits) { return core::bfloat16_to_float(bits); }

// The distance between the bfloat16 values around x: 8 significant bits.
double bfloat16_spacing(double x) {
  const double magnitude = std::max(std::fabs(x), 0x1p-126);
  return std::ldexp(1.0, std::ilogb(magnitude) - 7);
}

struct Case {
  std::int64_t m, n, k;
  bool transpose_a = false, transpose_b = false, bias = false;
  Activation activation = Activation::NONE;
  std::int64_t batch = 1;  // > 1: rank-3 tensors
  bool shared_b = false;   // with a batch: one B for every batch
  std::int64_t batches_of_b() const { return shared_b ? 1 : batch; }
  std::string describe() const {
    return (batch > 1 ? std::to_string(batch) + (shared_b ? " (shared B) x " : " x ") : "") + std::to_string(m) + "x" +
           std::to_string(n) + "x" + std::to_string(k) + (transpose_a ? " A^T" : "") + (transpose_b ? " B^T" : "") +
           (bias ? " +bias" : "") + " " + std::string(to_string(activation));
  }
};

class Bfloat16Matmul : public CpuEngineTest {
 protected:
  // The graph of `c` in `type` (uids: A 1, B 2, bias 3, output 4); the
  // virtual tensors between the steps are left to the graph (float).
  static void build(Graph& graph, const Case& c, DataType type = DataType::BFLOAT16) {
    TensorAttributes a = TensorAttributes().set_uid(1).set_dim({c.m, c.k}).set_data_type(type);
    if (c.transpose_a) a.set_stride({1, c.m});
    TensorAttributes b = TensorAttributes().set_uid(2).set_dim({c.k, c.n}).set_data_type(type);
    if (c.transpose_b) b.set_stride({1, c.k});
    if (c.batch > 1) {
      a.set_dim({c.batch, c.m, c.k});
      a.set_stride(c.transpose_a ? std::vector<std::int64_t>{c.m * c.k, 1, c.m}
                                 : std::vector<std::int64_t>{c.m * c.k, c.k, 1});
      b.set_dim({c.batches_of_b(), c.k, c.n});
      b.set_stride(c.transpose_b ? std::vector<std::int64_t>{c.k * c.n, 1, c.k}
                                 : std::vector<std::int64_t>{c.k * c.n, c.n, 1});
    }
    Tensor out = graph.matmul(graph.tensor(a), graph.tensor(b));
    if (c.bias) {
      const std::vector<std::int64_t> dims =
          c.batch > 1 ? std::vector<std::int64_t>{1, 1, c.n} : std::vector<std::int64_t>{1, c.n};
      out = graph.pointwise(out, graph.tensor(TensorAttributes().set_uid(3).set_dim(dims).set_data_type(type)),
                            PointwiseMode::ADD);
    }
    if (c.activation != Activation::NONE) out = graph.pointwise(out, mode_of(c.activation));
    out->set_output(true).set_uid(4).set_data_type(type);
  }

  // Runs `engine` on c and checks every element: within half a bfloat16
  // spacing of the exact result (one rounding: a product rounded before the
  // bias or activation is further off wherever they cancel or bend it), plus
  // the float product's own error.
  void check(std::int64_t engine, const Case& c, const std::map<std::string, KnobValue>& knobs) {
    SCOPED_TRACE(name_of(engine) + " " + c.describe());
    const auto a = random_bfloat16(static_cast<std::size_t>(c.batch * c.m * c.k), 21);
    const auto b = random_bfloat16(static_cast<std::size_t>(c.batches_of_b() * c.k * c.n), 22);
    // A bias of the product's size, so that it cancels the product in places.
    auto bias = random_bfloat16(static_cast<std::size_t>(c.n), 23);
    for (auto& x : bias) x = core::float_to_bfloat16(core::bfloat16_to_float(x) * std::sqrt(static_cast<float>(c.k)));
    std::vector<std::uint16_t> out(static_cast<std::size_t>(c.batch * c.m * c.n), 0x7FC1);  // a NaN
    Graph graph;
    build(graph, c);
    VariantPack pack{{1, const_cast<std::uint16_t*>(a.data())}, {2, const_cast<std::uint16_t*>(b.data())},
                     {4, out.data()}};
    if (c.bias) pack[3] = bias.data();
    const Error ran = run(graph, engine, knobs, pack);
    ASSERT_TRUE(ran.is_good()) << ran.message();
    double largest = 0.0;
    for (std::int64_t q = 0; q < c.batch * c.m; ++q) {
      const std::int64_t batch = q / c.m, i = q % c.m;
      const std::uint16_t* a_batch = a.data() + batch * c.m * c.k;
      const std::uint16_t* b_batch = b.data() + (c.shared_b ? 0 : batch) * c.k * c.n;
      for (std::int64_t j = 0; j < c.n; ++j) {
        double sum = c.bias ? value(bias[static_cast<std::size_t>(j)]) : 0.0;
        double magnitude = std::fabs(sum);
        for (std::int64_t p = 0; p < c.k; ++p) {
          const double x = value(c.transpose_a ? a_batch[p * c.m + i] : a_batch[i * c.k + p]);
          const double y = value(c.transpose_b ? b_batch[j * c.k + p] : b_batch[p * c.n + j]);
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        const double expected = activate(c.activation, sum);
        const double got = value(out[static_cast<std::size_t>(q * c.n + j)]);
        const double bound = bfloat16_spacing(expected) / 2 + 1e-6 * magnitude;
        largest = std::max(largest, std::fabs(got - expected) / bound);
        ASSERT_LE(std::fabs(got - expected), bound)
            << "at (" << q << ", " << j << "): got " << got << ", expected " << expected;
      }
    }
    std::printf("[bfloat16] %s %s: largest error %.2f of the bound\n", name_of(engine).c_str(),
                c.describe().c_str(), largest);
  }

  const std::vector<Case> cases_{
      {37, 23, 29, false, false, true, Activation::NONE},   {37, 23, 64, true, false, true, Activation::RELU},
      {37, 23, 29, false, true, true, Activation::GELU},    {64, 96, 130, true, true, false, Activation::SIGMOID},
      {1, 300, 257, false, false, true, Activation::TANH},  {130, 17, 64, false, false, true, Activation::GELU},
      {9, 17, 12, false, false, true, Activation::GELU, 3}, {20, 6, 33, false, false, true, Activation::RELU, 3, true},
      // Products run side by side (each too small for a team, the batch is not).
      {128, 128, 64, false, true, true, Activation::GELU, 12},
  };
};

TEST_F(Bfloat16Matmul, TunekitMatchesTheProductRoundedOnceOnEveryInstructionSetPathAndTeam) {
  const auto hardware = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    Result<cpu::ScopedIsa> forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const Case& c : cases_) {
      check(kMatmulTunekitEngine, c, {{"threads", std::int64_t{1}}});
      if (hardware > 1) check(kMatmulTunekitEngine, c, {{"threads", std::int64_t{2}}});
    }
  }
  // The tile knobs of the float product apply to the widened one too.
  check(kMatmulTunekitEngine, cases_[3], {{"tile_m", std::int64_t{96}}, {"tile_k", std::int64_t{128}}});
}

TEST_F(Bfloat16Matmul, TheDoubleOracleMatchesTheProductRoundedOnce) {
  for (const Case& c : cases_) check(kDoubleOracleEngine, c, {});
}

// oneDNN runs bfloat16 where it has an implementation for the processor (2.6
// needs AVX-512); elsewhere it is refused with oneDNN's reason.
TEST_F(Bfloat16Matmul, OnednnMatchesWhereItHasAnImplementationAndIsRefusedWithTheReasonElsewhere) {
  Graph probe;
  build(probe, cases_[0]);
  const std::string refused = refusal(probe, kMatmulOnednnEngine);
  if (!refused.empty()) {
    EXPECT_NE(refused.find("has no bfloat16 matmul on this processor (" + onednn_isa() + ")"), std::string::npos)
        << refused;
    GTEST_SKIP() << "oneDNN " << onednn_version() << " (" << onednn_isa() << ") has no bfloat16 matmul here: "
                 << refused;
  }
  for (const Case& c : cases_) check(kMatmulOnednnEngine, c, {});
}

TEST_F(Bfloat16Matmul, TheFloatOnlyEnginesRefuseItNamingTheType) {
  for (std::int64_t engine : {kMatmulTunekitRowSplitEngine, kMatmulOpenblasEngine, kMatmulBlisEngine,
                              kMatmulLibxsmmEngine}) {
    Graph graph;
    build(graph, cases_[0]);
    EXPECT_EQ(refusal(graph, engine), "A must be float, not bfloat16") << name_of(engine);
  }
  // A bfloat16 product whose output is float is not the pattern: one type throughout.
  Graph float_output;
  Case c = cases_[0];
  TensorAttributes a = TensorAttributes().set_uid(1).set_dim({c.m, c.k}).set_data_type(DataType::BFLOAT16);
  TensorAttributes b = TensorAttributes().set_uid(2).set_dim({c.k, c.n}).set_data_type(DataType::BFLOAT16);
  float_output.matmul(float_output.tensor(a), float_output.tensor(b))
      ->set_output(true)
      .set_uid(4)
      .set_data_type(DataType::FLOAT);
  EXPECT_EQ(refusal(float_output, kMatmulTunekitEngine), "C must be a bfloat16 matrix (rank 2) or a batch of them "
                                                         "(rank 3), as A");
}

TEST_F(Bfloat16Matmul, AutotuneChecksEveryCandidateAgainstTheOracleAndPicksOneThatRunsIt) {
  const Case c{48, 64, 96, false, false, true, Activation::GELU};
  const auto a = random_bfloat16(static_cast<std::size_t>(c.m * c.k), 31);
  const auto b = random_bfloat16(static_cast<std::size_t>(c.k * c.n), 32);
  const auto bias = random_bfloat16(static_cast<std::size_t>(c.n), 33);
  std::vector<std::uint16_t> out(static_cast<std::size_t>(c.m * c.n), 0x7FC1);
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  ASSERT_TRUE(graph.add_all_engines().is_good());
  VariantPack pack{{1, const_cast<std::uint16_t*>(a.data())}, {2, const_cast<std::uint16_t*>(b.data())},
                   {3, const_cast<std::uint16_t*>(bias.data())}, {4, out.data()}};
  std::vector<std::byte> workspace(std::size_t{1} << 20);
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 2;
  config.check_machine_load = false;
  std::vector<AutotuneResult> results;
  const Error tuned = graph.autotune(handle_.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()),
                                     config, {}, &results);
  ASSERT_TRUE(tuned.is_good()) << tuned.message();
  bool tunekit_ran = false;
  for (const AutotuneResult& r : results) {
    if (!r.succeeded) continue;
    EXPECT_NE(r.result_check.find("agrees with cpu_double_oracle"), std::string::npos)
        << r.engine_name << ": " << r.result_check;
    tunekit_ran = tunekit_ran || r.engine_id == kMatmulTunekitEngine;
    EXPECT_TRUE(r.engine_id == kMatmulTunekitEngine || r.engine_id == kMatmulOnednnEngine) << r.engine_name;
  }
  EXPECT_TRUE(tunekit_ran);
  ASSERT_FALSE(results.empty());
  EXPECT_TRUE(results.front().succeeded) << results.front().error_message;
}

// A pointwise graph over [rows, 3000] (two blocks and a ragged one per row
// pair): Y = gelu(X + bias) with bias [1, 3000], and Z = Y * s - X with s a
// scalar, both outputs of the graph; every tensor of its own bfloat16.
class Bfloat16Pointwise : public CpuEngineTest {
 protected:
  static constexpr std::int64_t kColumns = 3000;
  struct Tensors {
    Tensor x, bias, scalar, y, z;
  };
  static Tensors build(Graph& graph, std::int64_t rows, DataType output_type = DataType::BFLOAT16) {
    const DataType b = DataType::BFLOAT16;
    Tensors t;
    t.x = graph.tensor(TensorAttributes().set_name("X").set_uid(1).set_dim({rows, kColumns}).set_data_type(b));
    t.bias = graph.tensor(TensorAttributes().set_name("bias").set_uid(2).set_dim({1, kColumns}).set_data_type(b));
    t.scalar = graph.tensor(TensorAttributes().set_name("s").set_uid(3).set_dim({1, 1}).set_data_type(b));
    Tensor sum = graph.pointwise(t.x, t.bias, PointwiseMode::ADD);
    t.y = graph.pointwise(sum, PointwiseMode::GELU);
    t.y->set_output(true).set_uid(4).set_data_type(output_type);
    Tensor scaled = graph.pointwise(t.y, t.scalar, PointwiseMode::MUL);
    t.z = graph.pointwise(scaled, t.x, PointwiseMode::SUB);
    t.z->set_output(true).set_uid(5).set_data_type(output_type);
    return t;
  }

  void check(std::int64_t engine, std::int64_t rows, const std::map<std::string, KnobValue>& knobs) {
    SCOPED_TRACE(name_of(engine) + " rows " + std::to_string(rows));
    const auto x = random_bfloat16(static_cast<std::size_t>(rows * kColumns), 41);
    const auto bias = random_bfloat16(kColumns, 42);
    std::uint16_t scalar = core::float_to_bfloat16(1.75f);
    std::vector<std::uint16_t> y(x.size(), 0x7FC1), z(x.size(), 0x7FC1);
    Graph graph;
    build(graph, rows);
    const VariantPack pack{{1, const_cast<std::uint16_t*>(x.data())}, {2, const_cast<std::uint16_t*>(bias.data())},
                           {3, &scalar}, {4, y.data()}, {5, z.data()}};
    const Error ran = run(graph, engine, knobs, pack);
    ASSERT_TRUE(ran.is_good()) << ran.message();
    for (std::size_t e = 0; e < x.size(); ++e) {
      const double xe = value(x[e]);
      const double expected_y = activate(Activation::GELU, xe + value(bias[e % kColumns]));
      // Z reads Y as computed (the graph's output unrounded), as both engines do.
      const double expected_z = expected_y * value(scalar) - xe;
      const double bound_y = bfloat16_spacing(expected_y) / 2 + 1e-6 * (1 + std::fabs(expected_y));
      const double bound_z = bfloat16_spacing(expected_z) / 2 + 1e-6 * (1 + std::fabs(xe) + 2 * std::fabs(expected_y));
      ASSERT_LE(std::fabs(value(y[e]) - expected_y), bound_y) << "Y at " << e;
      ASSERT_LE(std::fabs(value(z[e]) - expected_z), bound_z) << "Z at " << e;
    }
  }
};

TEST_F(Bfloat16Pointwise, TunekitMatchesTheDoubleEvaluationOnEveryInstructionSetPathAndTeam) {
  const auto hardware = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    Result<cpu::ScopedIsa> forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (std::int64_t rows : {1, 5}) {
      check(kPointwiseTunekitEngine, rows, {{"threads", std::int64_t{1}}});
      if (hardware > 1) check(kPointwiseTunekitEngine, rows, {{"threads", std::int64_t{2}}});
    }
  }
}

TEST_F(Bfloat16Pointwise, TheDoubleOracleMatchesTheDoubleEvaluation) { check(kDoubleOracleEngine, 3, {}); }

// The widened inputs and outputs take a block of scratch each per thread,
// the broadcast operands their own widened copy: the estimate is what
// compile reports.
TEST_F(Bfloat16Pointwise, TheWorkspaceEstimateIsWhatCompileReports) {
  Graph graph;
  build(graph, 4);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const graph::Engine& engine = *registry_->find(kPointwiseTunekitEngine);
  for (std::int64_t threads : {1, 2}) {
    const KnobValues knobs({{"threads", threads}});
    Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
    ASSERT_TRUE(estimate.ok()) << estimate.error().message();
    auto compiled = engine.compile(graph.operation_graph(), knobs, device_);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message();
    EXPECT_EQ(*estimate, (*compiled)->workspace_size());
    // Two virtual tensors (X + bias, Y * s) and X, Y, Z: five blocks of 2048
    // floats a thread; bias and s widened once.
    EXPECT_EQ(*estimate, (threads * 5 * 2048 + kColumns + 1) * 4);
  }
}

TEST_F(Bfloat16Pointwise, OnednnAndMixedTypesAreRefusedWithTheReason) {
  Graph graph;
  build(graph, 2);
  EXPECT_EQ(refusal(graph, kPointwiseOnednnEngine), "the output must be float, not bfloat16");
  // bfloat16 inputs with float outputs: not one type.
  Graph mixed;
  build(mixed, 2, DataType::FLOAT);
  EXPECT_EQ(refusal(mixed, kPointwiseTunekitEngine).rfind("tensor ", 0), 0u) << refusal(mixed, kPointwiseTunekitEngine);
  EXPECT_NE(refusal(mixed, kPointwiseTunekitEngine).find("must be a densely packed float tensor"), std::string::npos);
}

}  // namespace
}  // namespace tunekit::engines
