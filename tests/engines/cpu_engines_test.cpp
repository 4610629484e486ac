// The CPU matmul engines (tunekit, OpenBLAS, BLIS, oneDNN, libxsmm) against a
// double-precision reference on random inputs: every engine, layout
// (transposed A or B; libxsmm refuses those), epilogue (bias, relu, gelu, sigmoid, tanh) and thread
// count, with outputs poisoned first; their workspace estimates against what
// compile reports; what they refuse; and that each library engine runs its
// own library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <set>
#include <thread>

// BLIS for its configurations' micro-kernels (TheBlisConfigurationKnob...).
#include <blis.h>

#include "matmul_test_support.hpp"
#include "tunekit/cpu/engines.hpp"
#include "tunekit/engines/blis_engines.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/engines/libxsmm_engines.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/openblas_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

constexpr std::int64_t kLibraryEngines[] = {kMatmulTunekitEngine, kMatmulTunekitRowSplitEngine, kMatmulOpenblasEngine,
                                            kMatmulBlisEngine, kMatmulOnednnEngine, kMatmulLibxsmmEngine};

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

struct Case {
  std::int64_t m, n, k;
  bool transpose_a = false, transpose_b = false, bias = false;
  Activation activation = Activation::NONE;
  std::int64_t batch = 1;  // > 1: rank-3 tensors, a batch of products
  bool shared_b = false;   // with a batch: B is one matrix for every batch
  std::int64_t batches_of_b() const { return shared_b ? 1 : batch; }
  std::string describe() const {
    return (batch > 1 ? std::to_string(batch) + (shared_b ? " (shared B) x " : " x ") : "") + std::to_string(m) + "x" +
           std::to_string(n) + "x" + std::to_string(k) + (transpose_a ? " A^T" : "") + (transpose_b ? " B^T" : "") +
           (bias ? " +bias" : "") + " " + std::string(to_string(activation));
  }
};

class CpuEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(register_cpu_engines(*registry).is_good());
    registry_ = registry;
    handle_ = std::move(Handle::create(device_, registry_)).value();
  }

  // Builds the graph of `c` (uids: A 1, B 2, bias 3, output 4); operands
  // stored transposed when asked.
  static void build(Graph& graph, const Case& c) {
    TensorAttributes a = TensorAttributes().set_uid(1).set_dim({c.m, c.k});
    if (c.transpose_a) a.set_stride({1, c.m});
    TensorAttributes b = TensorAttributes().set_uid(2).set_dim({c.k, c.n});
    if (c.transpose_b) b.set_stride({1, c.k});
    if (c.batch > 1) {
      a.set_dim({c.batch, c.m, c.k});
      a.set_stride(c.transpose_a ? std::vector<std::int64_t>{c.m * c.k, 1, c.m} : std::vector<std::int64_t>{c.m * c.k, c.k, 1});
      b.set_dim({c.batches_of_b(), c.k, c.n});
      b.set_stride(c.transpose_b ? std::vector<std::int64_t>{c.k * c.n, 1, c.k} : std::vector<std::int64_t>{c.k * c.n, c.n, 1});
    }
    Tensor out = graph.matmul(graph.tensor(a), graph.tensor(b));
    if (c.bias) {
      const std::vector<std::int64_t> bias_dims =
          c.batch > 1 ? std::vector<std::int64_t>{1, 1, c.n} : std::vector<std::int64_t>{1, c.n};
      out = graph.pointwise(out, graph.tensor(TensorAttributes().set_uid(3).set_dim(bias_dims)), PointwiseMode::ADD);
    }
    if (c.activation != Activation::NONE) out = graph.pointwise(out, mode_of(c.activation));
    out->set_output(true).set_uid(4);
  }

  // Runs engine on c with knobs and checks every element against the double reference.
  void check(std::int64_t engine, const Case& c, const std::map<std::string, KnobValue>& knobs) {
    SCOPED_TRACE(registry_->find(engine)->descriptor().name + " " + c.describe());
    const std::vector<float> a = random_values(static_cast<std::size_t>(c.batch * c.m * c.k), 11);
    const std::vector<float> b = random_values(static_cast<std::size_t>(c.batches_of_b() * c.k * c.n), 12);
    const std::vector<float> bias = random_values(static_cast<std::size_t>(c.n), 13);
    Graph graph;
    build(graph, c);
    const Error built = graph.build_operation_graph(handle_.get());
    ASSERT_TRUE(built.is_good()) << built.message();
    const Error created = graph.create_execution_plan_ext(engine, knobs);
    ASSERT_TRUE(created.is_good()) << created.message();
    ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::ALL).is_good());
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    std::vector<float> out(static_cast<std::size_t>(c.batch * c.m * c.n), std::nanf(""));
    VariantPack pack{{1, const_cast<float*>(a.data())}, {2, const_cast<float*>(b.data())}, {4, out.data()}};
    if (c.bias) pack[3] = const_cast<float*>(bias.data());
    const Error executed = graph.execute(handle_.get(), pack, workspace.data());
    ASSERT_TRUE(executed.is_good()) << executed.message();
    for (std::int64_t q = 0; q < c.batch * c.m; ++q) {
      const std::int64_t batch = q / c.m, i = q % c.m;
      const float* a_batch = a.data() + batch * c.m * c.k;
      const float* b_batch = b.data() + (c.shared_b ? 0 : batch) * c.k * c.n;
      for (std::int64_t j = 0; j < c.n; ++j) {
        double sum = c.bias ? bias[static_cast<std::size_t>(j)] : 0.0;
        for (std::int64_t p = 0; p < c.k; ++p) {
          const float x = c.transpose_a ? a_batch[p * c.m + i] : a_batch[i * c.k + p];
          const float y = c.transpose_b ? b_batch[j * c.k + p] : b_batch[p * c.n + j];
          sum += static_cast<double>(x) * y;
        }
        const double expected = activate(c.activation, sum);
        const float got = out[static_cast<std::size_t>(q * c.n + j)];
        ASSERT_LE(std::fabs(got - expected), 2e-5 * std::sqrt(static_cast<double>(c.k)) * std::max(1.0, std::fabs(expected)))
            << "at (" << i << ", " << j << "): got " << got << ", expected " << expected;
      }
    }
  }

  platform::CpuDevice device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<Handle> handle_;
};

TEST_F(CpuEngines, EveryProviderIsBuiltAndNamesItsLibraryVersion) {
  // scripts/bootstrap installs OpenBLAS and BLIS: CI builds every provider.
  EXPECT_EQ(cpu_engine_providers(),
            (std::vector<std::string>{"tunekit-find", "tunekit", "openblas", "blis", "onednn", "libxsmm", "tunekit-cpu-reference", "tunekit-oracle"}));
  const std::regex version(R"(\d+\.\d+(\.\d+)?)");
  EXPECT_TRUE(std::regex_match(openblas_version(), version)) << openblas_version();
  EXPECT_TRUE(std::regex_match(blis_version(), version)) << blis_version();
  EXPECT_TRUE(std::regex_match(onednn_version(), version)) << onednn_version();
  EXPECT_EQ(registry_->origin(kMatmulOnednnEngine)->catalogue_version,
            "onednn-" + onednn_version() + "-" + onednn_isa() + "-engines-3");
  EXPECT_EQ(registry_->origin(kMatmulOpenblasEngine)->catalogue_version,
            "openblas-" + openblas_version() + "-" + openblas_core_name() + "-engines-1");
  EXPECT_EQ(registry_->origin(kMatmulBlisEngine)->catalogue_version,
            "blis-" + blis_version() + "-" + blis_configuration() + "-engines-2");
  EXPECT_EQ(registry_->origin(kMatmulLibxsmmEngine)->catalogue_version,
            "libxsmm-" + libxsmm_version() + "-" + libxsmm_target() + "-engines-1");
  EXPECT_TRUE(std::regex_match(libxsmm_version(), version)) << libxsmm_version();
  EXPECT_FALSE(libxsmm_target().empty());
  EXPECT_EQ(registry_->origin(kMatmulTunekitEngine)->provider, "tunekit");
  EXPECT_NE(registry_->find(kMatmulOpenblasEngine)->descriptor().description.find(openblas_core_name()),
            std::string::npos);
  std::printf("[engines] OpenBLAS %s (%s kernels, cblas_sgemm from %s); BLIS %s (configuration %s); oneDNN %s (%s)\n",
              openblas_version().c_str(), openblas_core_name().c_str(), openblas_sgemm_library().c_str(),
              blis_version().c_str(), blis_configuration().c_str(), onednn_version().c_str(), onednn_isa().c_str());
}

TEST_F(CpuEngines, LibxsmmLeavesTheEnvironmentOfProgramsThisOneStartsAsItWas) {
  // libxsmm exports OMP_PROC_BIND=TRUE when it initializes (the fixture
  // registered its engine): a child would pin its main thread to one CPU.
  std::ifstream initial("/proc/self/environ", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(initial)), std::istreambuf_iterator<char>());
  const bool given = text.rfind("OMP_PROC_BIND=", 0) == 0 || text.find(std::string("\0OMP_PROC_BIND=", 15)) != std::string::npos;
  EXPECT_EQ(std::getenv("OMP_PROC_BIND") != nullptr, given);
  LibxsmmEngineProvider again;  // a second provider changes nothing either
  EXPECT_EQ(std::getenv("OMP_PROC_BIND") != nullptr, given);
}

TEST_F(CpuEngines, TheOpenblasEngineCallsOpenblasAndNotBlisBlasSymbols) {
  // Both libraries export cblas_sgemm; the one the engine calls must be OpenBLAS's.
  EXPECT_NE(openblas_sgemm_library().find("openblas"), std::string::npos) << openblas_sgemm_library();
}

TEST_F(CpuEngines, EveryEngineMatchesTheDoubleReferenceOnEveryLayoutAndEpilogue) {
  const std::vector<Case> cases{
      {37, 23, 29, false, false, false, Activation::NONE},  {37, 23, 29, true, false, true, Activation::RELU},
      {37, 23, 29, false, true, true, Activation::GELU},    {64, 96, 130, true, true, false, Activation::SIGMOID},
      {1, 300, 257, false, false, true, Activation::TANH},  {130, 17, 64, false, false, true, Activation::GELU},
      {5, 1, 7, false, false, true, Activation::RELU},
      // Batches of products, and one B for every batch.
      {9, 17, 12, false, false, true, Activation::GELU, 3},  {9, 17, 12, true, true, false, Activation::NONE, 4},
      {20, 6, 33, false, false, true, Activation::RELU, 3, true},
      // Attention's shape: each product too small for a team, the batch is
      // not (tunekit's engine runs the products side by side).
      {128, 128, 64, false, true, true, Activation::RELU, 12},
  };
  const auto hardware = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  for (std::int64_t engine : kLibraryEngines) {
    for (const Case& c : cases) {
      if (engine == kMatmulLibxsmmEngine && (c.transpose_a || c.transpose_b)) {
        Graph graph;
        build(graph, c);
        ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
        EXPECT_EQ(registry_->find(engine)->check_applicable(graph.operation_graph(), device_).message(),
                  "a transposed operand (libxsmm's kernels here take A and B as stored)");
        continue;
      }
      check(engine, c, {});
      check(engine, c, {{"threads", std::int64_t{1}}});
      if (hardware > 1) check(engine, c, {{"threads", std::int64_t{2}}});
    }
  }
}

// The BLIS engine's configuration knob: every configuration built into the
// linked BLIS that this processor runs is offered, and each computes the
// product on a context of its own (the micro-kernel of an instruction-set
// configuration is not generic's).
TEST_F(CpuEngines, TheBlisConfigurationKnobRunsEachConfigurationOnItsOwnContext) {
  const std::vector<BlisConfiguration> configurations = blis_configurations();
  // scripts/bootstrap installs libblis-dev, whose static archive has the lookup.
  ASSERT_FALSE(configurations.empty());
  std::vector<KnobValue> expected{KnobValue(std::string("auto"))};
  std::set<std::string> names;
  for (const BlisConfiguration& c : configurations) {
    expected.push_back(KnobValue(c.name));
    names.insert(c.name);
  }
  const auto& knobs = registry_->find(kMatmulBlisEngine)->descriptor().knobs;
  const auto knob = std::find_if(knobs.begin(), knobs.end(), [](const Knob& k) { return k.id == "configuration"; });
  ASSERT_NE(knob, knobs.end());
  EXPECT_EQ(knob->allowed_values, expected);
  // The detected configuration is "auto" alone.
  EXPECT_FALSE(names.count(blis_configuration())) << knob->description;
  names.insert(blis_configuration());
  EXPECT_TRUE(names.count("generic")) << knob->description;
  const auto& features = platform::GetCpuDescriptor().features;
  if (features.contains(platform::CpuFeature::AVX2) && features.contains(platform::CpuFeature::FMA)) {
    EXPECT_TRUE(names.count("haswell")) << knob->description;
  }
  if (!features.contains(platform::CpuFeature::AVX512F)) {
    EXPECT_FALSE(names.count("skx")) << knob->description;
  }
  const auto kernel_of = [](void* context) {
    return reinterpret_cast<void*>(bli_cntx_get_l3_nat_ukr_dt(BLIS_FLOAT, BLIS_GEMM_UKR, static_cast<cntx_t*>(context)));
  };
  const auto generic = std::find_if(configurations.begin(), configurations.end(),
                                    [](const BlisConfiguration& c) { return c.name == "generic"; });
  void* generic_kernel = kernel_of(generic != configurations.end() ? generic->context : bli_gks_query_cntx());
  for (const BlisConfiguration& c : configurations) {
    SCOPED_TRACE(c.name);
    EXPECT_NE(c.context, static_cast<void*>(bli_gks_query_cntx()));
    if (c.name != "generic") {
      EXPECT_NE(kernel_of(c.context), generic_kernel);
    }
    check(kMatmulBlisEngine, {37, 23, 29, false, true, true, Activation::GELU}, {{"configuration", c.name}});
    check(kMatmulBlisEngine, {130, 70, 300, true, false, false, Activation::NONE},
          {{"configuration", c.name}, {"threads", std::int64_t{1}}});
  }
  // A configuration that is not offered is refused when the plan is made.
  Graph graph;
  build(graph, {8, 8, 8});
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  EXPECT_TRUE(graph.create_execution_plan_ext(kMatmulBlisEngine, {{"configuration", std::string("knl")}}).is_bad());
}

TEST_F(CpuEngines, TunekitTileKnobsChangeTheConfigurationNotTheResult) {
  const Case c{150, 70, 400, false, false, true, Activation::RELU};
  for (std::int64_t tile_m : {0, 96, 192}) {
    for (std::int64_t tile_k : {0, 128, 384}) check(kMatmulTunekitEngine, c, {{"tile_m", tile_m}, {"tile_k", tile_k}});
  }
  // A crossover low enough that the product runs on every thread, and a
  // tall one of many rows on the session's crossover and below it (with
  // one hardware thread the knob is refused, as below).
  const bool team = std::thread::hardware_concurrency() > 1;
  for (std::int64_t fmas : {0, 262144, 1048576}) {
    if (fmas > 0 && !team) continue;
    check(kMatmulTunekitEngine, c, {{"fmas_per_work_unit", fmas}});
    check(kMatmulTunekitEngine, {1024, 64, 64, false, false, true, Activation::RELU}, {{"fmas_per_work_unit", fmas}});
    // A batch whose products each get a team at the low crossovers: side
    // by side when the batch divides between the threads, or one after
    // another (5 products), each with its bias.
    check(kMatmulTunekitEngine, {128, 96, 64, false, false, true, Activation::RELU, 6}, {{"fmas_per_work_unit", fmas}});
    check(kMatmulTunekitEngine, {128, 96, 64, false, true, true, Activation::GELU, 5, true},
          {{"fmas_per_work_unit", fmas}});
  }
  // On one thread the knob has nothing to choose.
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const Engine& engine = *registry_->find(kMatmulTunekitEngine);
  const KnobValues knobs = engine.descriptor().resolve(
      {KnobSetting{"threads", std::int64_t{1}}, KnobSetting{"fmas_per_work_unit", std::int64_t{262144}}});
  Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
  ASSERT_FALSE(estimate.ok());
  EXPECT_EQ(estimate.error().code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(estimate.error().message(), "fmas_per_work_unit: the run has one thread");
  EXPECT_FALSE(engine.compile(graph.operation_graph(), knobs, device_).ok());
}

TEST_F(CpuEngines, EachOnednnImplementationMatchesTheReferenceAndOnePastTheListIsRefused) {
  const Case c{37, 23, 29, false, true, true, Activation::GELU};
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const std::vector<std::string> implementations =
      onednn_matmul_implementations(match_matmul(graph.operation_graph()).value());
  ASSERT_GE(implementations.size(), 2u);  // at least a JIT one and ref:any
  std::string listed;
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    check(kMatmulOnednnEngine, c, {{"implementation", static_cast<std::int64_t>(i)}});
    listed += implementations[i] + " ";
  }
  std::printf("[engines] oneDNN's implementations of %s: %s\n", c.describe().c_str(), listed.c_str());
  const Engine& engine = *registry_->find(kMatmulOnednnEngine);
  KnobValues knobs = engine.descriptor().resolve({});
  knobs.set("implementation", static_cast<std::int64_t>(implementations.size()));
  auto compiled = engine.compile(graph.operation_graph(), knobs, device_);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.error().code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_NE(compiled.error().message().find("oneDNN offers " + std::to_string(implementations.size()) + " implementations"),
            std::string::npos)
      << compiled.error().message();
}

TEST_F(CpuEngines, OnednnRefusesSizesPastItsThirtyTwoBitOffsetsInsteadOfCrashing) {
  // oneDNN 2.6 dies of SIGFPE creating a descriptor with a dimension of 2^32.
  Graph graph;
  build(graph, {std::int64_t{1} << 32, 1, 1, false, false, false, Activation::NONE});
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const Error applicable = registry_->find(kMatmulOnednnEngine)->check_applicable(graph.operation_graph(), device_);
  EXPECT_EQ(applicable.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_NE(applicable.message().find("a size of 4294967296 exceeds what oneDNN takes (2147483647)"), std::string::npos)
      << applicable.message();
  const Engine& engine = *registry_->find(kMatmulOnednnEngine);
  EXPECT_FALSE(engine.estimate_workspace(graph.operation_graph(), engine.descriptor().resolve({})).ok());
}

TEST_F(CpuEngines, WorkspaceEstimatesEqualWhatCompileReports) {
  for (Activation activation : {Activation::NONE, Activation::GELU}) {
    Graph graph;
    build(graph, {20, 40, 8, false, false, true, activation});
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const OperationGraph& op_graph = graph.operation_graph();
    for (std::int64_t id : kLibraryEngines) {
      const Engine& engine = *registry_->find(id);
      for (std::int64_t threads : {std::int64_t{1}, std::int64_t{2}}) {
        KnobValues knobs = engine.descriptor().resolve({});
        knobs.set("threads", threads);
        Result<std::int64_t> estimate = engine.estimate_workspace(op_graph, knobs);
        ASSERT_TRUE(estimate.ok());
        auto compiled = engine.compile(op_graph, knobs, device_);
        ASSERT_TRUE(compiled.ok()) << compiled.error().message();
        EXPECT_EQ(*estimate, (*compiled)->workspace_size()) << engine.descriptor().name;
        // tunekit's epilogue runs in place; oneDNN's workspace is its primitive's scratchpad.
        if (id != kMatmulOnednnEngine) {
          EXPECT_EQ(*estimate, 0) << engine.descriptor().name;
        }
      }
    }
  }
}

TEST_F(CpuEngines, GraphsOutsideTheMatmulPatternAreRefusedWithTheReason) {
  struct Refusal {
    std::function<void(Graph&)> build;
    std::string reason;
  };
  const std::vector<Refusal> refusals{
      {[](Graph& g) {
         g.pointwise(g.tensor(TensorAttributes().set_uid(1).set_dim({4, 4})), PointwiseMode::RELU)
             ->set_output(true)
             .set_uid(4);
       },
       "only a matmul, optionally followed by a bias add and an activation"},
      {[](Graph& g) {
         Tensor ab = g.matmul(g.tensor(TensorAttributes().set_uid(1).set_dim({4, 3})),
                              g.tensor(TensorAttributes().set_uid(2).set_dim({3, 5})));
         g.pointwise(ab, g.tensor(TensorAttributes().set_uid(3).set_dim({4, 5})), PointwiseMode::ADD)
             ->set_output(true)
             .set_uid(4);
       },
       "must be a contiguous float [1, N] input"},
      {[](Graph& g) {
         Tensor ab = g.matmul(g.tensor(TensorAttributes().set_uid(1).set_dim({4, 3})),
                              g.tensor(TensorAttributes().set_uid(2).set_dim({3, 5})));
         g.pointwise(ab, PointwiseMode::EXP)->set_output(true).set_uid(4);
       },
       "is neither a bias add after the matmul nor one relu, gelu, sigmoid or tanh"},
  };
  for (const Refusal& refusal : refusals) {
    Graph graph;
    refusal.build(graph);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    for (std::int64_t id : kLibraryEngines) {
      const Error applicable = registry_->find(id)->check_applicable(graph.operation_graph(), device_);
      EXPECT_EQ(applicable.code(), ErrorCode::NOT_SUPPORTED);
      EXPECT_NE(applicable.message().find(refusal.reason), std::string::npos) << applicable.message();
    }
  }
}

}  // namespace
}  // namespace tunekit::engines
