// The sample graphs of examples/graphs on the CPU engine providers: every
// shape set has applicable engines from at least two libraries, each of
// which matches the reference engines (or a double-precision oracle) on
// random inputs;
// and a winner autotuned here among tunekit, OpenBLAS and BLIS is picked
// with its knobs by a second process that reads the override file.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "tunekit/cpu/engines.hpp"
#include "tunekit/engines/blis_engines.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/engines/layernorm_pattern.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/oracle_engine.hpp"
#include "tunekit/engines/reduction_pattern.hpp"
#include "tunekit/engines/rmsnorm_pattern.hpp"
#include "tunekit/engines/softmax_pattern.hpp"
#include "tunekit/engines/openblas_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

constexpr const char* kSecondProcessFile = "TUNEKIT_TEST_ENGINES_OVERRIDE_FILE";
constexpr const char* kSecondProcessPlan = "TUNEKIT_TEST_ENGINES_EXPECTED_PLAN";

std::vector<std::filesystem::path> sample_graphs() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs")) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Buffers for every non-virtual tensor of a built graph: inputs random in
// [-1, 1], outputs NaN.
struct Buffers {
  std::map<std::int64_t, std::vector<float>> data;
  VariantPack pack;
  std::vector<std::int64_t> outputs;

  explicit Buffers(const OperationGraph& graph) {
    std::set<std::int64_t> produced;
    for (const Operation& op : graph.operations()) {
      for (const auto& [port, tensor] : op.outputs) produced.insert(tensor->get_uid());
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::int64_t uid : graph.required_uids()) {
      const std::int64_t bytes = graph.find_tensor(uid)->span_bytes().value();
      std::vector<float>& values = data[uid];
      values.resize(static_cast<std::size_t>(bytes) / sizeof(float));
      const bool output = produced.count(uid) > 0;
      for (float& x : values) x = output ? std::nanf("") : u(rng);
      if (output) outputs.push_back(uid);
      pack[uid] = values.data();
    }
  }
  void poison() {
    for (std::int64_t uid : outputs) std::fill(data[uid].begin(), data[uid].end(), std::nanf(""));
  }
};

// The convolution of a conv sample graph in double precision, in Y's layout.
std::vector<float> reference_conv(const ConvPattern& p, Buffers& buffers) {
  const std::vector<float>& x = buffers.data.at(p.x_uid);
  const std::vector<float>& w = buffers.data.at(p.w_uid);
  const std::vector<float>* bias = p.bias_uid >= 0 ? &buffers.data.at(p.bias_uid) : nullptr;
  std::vector<float> y(static_cast<std::size_t>(p.n * p.k * p.p * p.q));
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  auto x_at = [&](std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w_) {
    return p.nhwc ? x[static_cast<std::size_t>(((n * p.h + h) * p.w + w_) * p.c + c)]
                  : x[static_cast<std::size_t>(((n * p.c + c) * p.h + h) * p.w + w_)];
  };
  for (std::int64_t n = 0; n < p.n; ++n) {
    for (std::int64_t k = 0; k < p.k; ++k) {
      for (std::int64_t oh = 0; oh < p.p; ++oh) {
        for (std::int64_t ow = 0; ow < p.q; ++ow) {
          double sum = bias ? (*bias)[static_cast<std::size_t>(k)] : 0.0;
          for (std::int64_t r = 0; r < p.r; ++r) {
            const std::int64_t ih = oh * p.stride_h - p.pad_h + r * p.dilation_h;
            if (ih < 0 || ih >= p.h) continue;
            for (std::int64_t s = 0; s < p.s; ++s) {
              const std::int64_t iw = ow * p.stride_w - p.pad_w + s * p.dilation_w;
              if (iw < 0 || iw >= p.w) continue;
              for (std::int64_t c = 0; c < cg; ++c) {  // the group's channels
                sum += static_cast<double>(x_at(n, k / kg * cg + c, ih, iw)) *
                       w[static_cast<std::size_t>(((k * cg + c) * p.r + r) * p.s + s)];
              }
            }
          }
          const double value = p.relu ? std::max(sum, 0.0) : sum;
          const std::int64_t at = p.nhwc ? ((n * p.p + oh) * p.q + ow) * p.k + k : ((n * p.k + k) * p.p + oh) * p.q + ow;
          y[static_cast<std::size_t>(at)] = static_cast<float>(value);
        }
      }
    }
  }
  return y;
}

// A batch of products (rank 3) in double precision, in C's layout (the
// reference engines run rank 2 only); no epilogue (the sample has none).
std::vector<float> reference_batched_matmul(const MatmulPattern& p, Buffers& buffers) {
  const std::vector<float>& a = buffers.data.at(p.a.uid);
  const std::vector<float>& b = buffers.data.at(p.b.uid);
  std::vector<float> c(buffers.data.at(p.c_uid).size());
  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const float* x = a.data() + batch * p.a_batch_stride;
    const float* y = b.data() + batch * p.b_batch_stride;
    for (std::int64_t i = 0; i < p.m; ++i) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (std::int64_t q = 0; q < p.k; ++q) {
          const float u = p.a.transposed ? x[q * p.a.ld + i] : x[i * p.a.ld + q];
          const float v = p.b.transposed ? y[j * p.b.ld + q] : y[q * p.b.ld + j];
          sum += static_cast<double>(u) * v;
        }
        c[static_cast<std::size_t>(batch * p.c_batch_stride + i * p.ldc + j)] = static_cast<float>(sum);
      }
    }
  }
  return c;
}

// The sum of a reduction sample graph in double precision.
std::vector<float> reference_sum(const ReductionPattern& p, Buffers& buffers) {
  const std::vector<float>& x = buffers.data.at(p.x_uid);
  std::vector<float> y(static_cast<std::size_t>(p.outer * p.inner));
  for (std::int64_t o = 0; o < p.outer; ++o) {
    for (std::int64_t i = 0; i < p.inner; ++i) {
      double sum = 0;
      for (std::int64_t r = 0; r < p.reduced; ++r) sum += x[static_cast<std::size_t>((o * p.reduced + r) * p.inner + i)];
      y[static_cast<std::size_t>(o * p.inner + i)] = static_cast<float>(sum);
    }
  }
  return y;
}

// The layer normalization of a layernorm sample graph in double precision.
std::vector<float> reference_layernorm(const LayerNormPattern& p, Buffers& buffers) {
  const std::vector<float>& x = buffers.data.at(p.x_uid);
  const std::vector<float>& scale = buffers.data.at(p.scale_uid);
  const std::vector<float>& bias = buffers.data.at(p.bias_uid);
  std::vector<float> y(x.size());
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const float* row = x.data() + r * p.width;
    double mean = 0, variance = 0;
    for (std::int64_t i = 0; i < p.width; ++i) mean += row[i];
    mean /= static_cast<double>(p.width);
    for (std::int64_t i = 0; i < p.width; ++i) variance += (row[i] - mean) * (row[i] - mean);
    const double inv = 1.0 / std::sqrt(variance / static_cast<double>(p.width) + p.epsilon);
    for (std::int64_t i = 0; i < p.width; ++i) {
      y[static_cast<std::size_t>(r * p.width + i)] =
          static_cast<float>((row[i] - mean) * inv * scale[static_cast<std::size_t>(i)] + bias[static_cast<std::size_t>(i)]);
    }
  }
  return y;
}

// The RMS normalization of an rmsnorm sample graph in double precision.
std::vector<float> reference_rmsnorm(const RmsNormPattern& p, Buffers& buffers) {
  const std::vector<float>& x = buffers.data.at(p.x_uid);
  const std::vector<float>& scale = buffers.data.at(p.scale_uid);
  std::vector<float> y(x.size());
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const float* row = x.data() + r * p.width;
    double squares = 0;
    for (std::int64_t i = 0; i < p.width; ++i) squares += static_cast<double>(row[i]) * row[i];
    const double inv = 1.0 / std::sqrt(squares / static_cast<double>(p.width) + p.epsilon);
    for (std::int64_t i = 0; i < p.width; ++i) {
      y[static_cast<std::size_t>(r * p.width + i)] = static_cast<float>(row[i] * inv * scale[static_cast<std::size_t>(i)]);
    }
  }
  return y;
}

// The softmax of a softmax sample graph (along the last dim) in double precision.
std::vector<float> reference_softmax(const SoftmaxPattern& p, Buffers& buffers) {
  const std::vector<float>& x = buffers.data.at(p.x_uid);
  std::vector<float> y(x.size());
  for (std::int64_t r = 0; r < p.outer; ++r) {
    const float* row = x.data() + r * p.width;
    double largest = row[0], total = 0;
    for (std::int64_t i = 0; i < p.width; ++i) largest = std::max(largest, static_cast<double>(row[i]));
    for (std::int64_t i = 0; i < p.width; ++i) total += std::exp(row[i] - largest);
    for (std::int64_t i = 0; i < p.width; ++i) {
      y[static_cast<std::size_t>(r * p.width + i)] = static_cast<float>(std::exp(row[i] - largest) / total);
    }
  }
  return y;
}

class SampleGraphs : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(register_cpu_engines(*registry).is_good());
    registry_ = registry;
    handle_ = std::move(Handle::create(device_, registry_)).value();
  }

  // Shape set `set` of file, validated and built.
  Graph make(const GraphFile& file, std::size_t set) {
    Graph graph = make_graph(file, set).value();
    EXPECT_TRUE(graph.validate().is_good());
    EXPECT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    return graph;
  }

  // Runs `engine` (default knobs but those given) on buffers, in a graph of its own.
  Error run(const GraphFile& file, std::size_t set, std::int64_t engine, const std::vector<KnobSetting>& knobs,
            Buffers& buffers) {
    Graph copy = make(file, set);
    std::map<std::string, KnobValue> values;
    for (const KnobSetting& knob : knobs) values[knob.knob_id] = knob.value;
    TUNEKIT_RETURN_IF_ERROR(copy.create_execution_plan_ext(engine, values));
    TUNEKIT_RETURN_IF_ERROR(copy.build_plans(BuildPlanPolicy::ALL));
    std::vector<std::byte> workspace(static_cast<std::size_t>(copy.get_workspace_size()) + 1);
    buffers.poison();
    return copy.execute(handle_.get(), buffers.pack, workspace.data());
  }

  platform::CpuDevice device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<Handle> handle_;
};

TEST_F(SampleGraphs, EveryShapeSetHasEnginesFromTwoLibrariesThatMatchTheReference) {
  const std::vector<std::filesystem::path> files = sample_graphs();
  ASSERT_GE(files.size(), 3u);
  for (const std::filesystem::path& path : files) {
    Result<GraphFile> file = read_graph_file(path);
    ASSERT_TRUE(file.ok()) << file.error().message();
    for (std::size_t set = 0; set < file->shape_sets.size(); ++set) {
      SCOPED_TRACE(path.filename().string() + " [" + file->shape_sets[set].name + "]");
      ASSERT_TRUE(make_graph(*file, set).ok());
      Graph graph = make(*file, set);
      std::vector<std::int64_t> applicable;
      std::set<std::string> libraries;
      int references = 0;  // engines autotune's result check can compare with
      for (const auto& engine : registry_->engines()) {
        const std::int64_t id = engine->descriptor().id;
        const bool applies = engine->check_applicable(graph.operation_graph(), device_).is_good();
        if (engine->descriptor().reference) {
          references += applies ? 1 : 0;
          continue;
        }
        if (applies) {
          applicable.push_back(id);
          libraries.insert(registry_->origin(id)->provider);
        }
      }
      EXPECT_GE(applicable.size(), 2u);
      EXPECT_GE(libraries.size(), 2u);
      EXPECT_GE(references, 1) << "autotune could not check this graph's results";

      // The oracle: the reference engine for matmul graphs, a double-precision
      // direct convolution, normalization, softmax or sum for the others (no
      // reference engine runs them).
      Buffers buffers(graph.operation_graph());
      std::map<std::int64_t, std::vector<float>> expected;
      std::int64_t depth = 0;
      bool in_double = true;  // expected computed by the loops above, in double
      if (Result<ConvPattern> conv = match_conv(graph.operation_graph()); conv.ok()) {
        expected[conv->y_uid] = reference_conv(*conv, buffers);
        depth = conv->c / conv->groups * conv->r * conv->s;
      } else if (Result<LayerNormPattern> norm = match_layernorm(graph.operation_graph()); norm.ok()) {
        expected[norm->y_uid] = reference_layernorm(*norm, buffers);
        depth = 1;
      } else if (Result<RmsNormPattern> rms = match_rmsnorm(graph.operation_graph()); rms.ok()) {
        expected[rms->y_uid] = reference_rmsnorm(*rms, buffers);
        depth = 1;
      } else if (Result<SoftmaxPattern> softmax = match_softmax(graph.operation_graph()); softmax.ok()) {
        ASSERT_EQ(softmax->inner, 1);
        expected[softmax->y_uid] = reference_softmax(*softmax, buffers);
        depth = 1;
      } else if (Result<ReductionPattern> sum = match_reduction(graph.operation_graph()); sum.ok()) {
        ASSERT_EQ(sum->mode, ReductionMode::SUM);
        expected[sum->y_uid] = reference_sum(*sum, buffers);
        depth = sum->reduced;
      } else if (Result<MatmulPattern> mm = match_matmul(graph.operation_graph()); mm.ok() && mm->batch > 1) {
        ASSERT_FALSE(mm->has_epilogue());
        expected[mm->c_uid] = reference_batched_matmul(*mm, buffers);
        depth = mm->k;
      } else {
        const Error referenced = run(*file, set, cpu::kSequentialEngine, {{"matmul_tile", std::int64_t{64}}}, buffers);
        ASSERT_TRUE(referenced.is_good()) << referenced.message();
        expected = buffers.data;
        in_double = false;
        const graph::Tensor a = graph.operation_graph().operations()[0].input("A");
        depth = a ? a->get_dim().back() : 1;  // a matmul's K; 1 for pointwise graphs
      }
      // The double-precision oracle engine agrees with this test's own
      // double-precision loops up to the rounding of the last step.
      if (in_double) {
        const Error ran = run(*file, set, kDoubleOracleEngine, {}, buffers);
        ASSERT_TRUE(ran.is_good()) << ran.message();
        for (std::int64_t uid : buffers.outputs) {
          const std::vector<float>& want = expected.at(uid);
          const std::vector<float>& got = buffers.data.at(uid);
          for (std::size_t i = 0; i < want.size(); ++i) {
            ASSERT_LE(std::fabs(got[i] - want[i]), 1e-6 * std::max(1.0f, std::fabs(want[i])))
                << "cpu_double_oracle, element " << i << " of uid " << uid << ": " << got[i] << " against " << want[i];
          }
        }
      }
      for (std::int64_t id : applicable) {
        SCOPED_TRACE(registry_->find(id)->descriptor().name);
        const Error ran = run(*file, set, id, {}, buffers);
        ASSERT_TRUE(ran.is_good()) << ran.message();
        for (std::int64_t uid : buffers.outputs) {
          const std::vector<float>& want = expected.at(uid);
          const std::vector<float>& got = buffers.data.at(uid);
          for (std::size_t i = 0; i < want.size(); ++i) {
            ASSERT_LE(std::fabs(got[i] - want[i]), 4e-6 * std::sqrt(static_cast<double>(depth)) * 8 *
                                                        std::max(1.0f, std::fabs(want[i])))
                << "element " << i << " of uid " << uid << ": " << got[i] << " against " << want[i];
          }
        }
      }
    }
  }
}

// Runs this test binary again with only `test` selected and the environment set.
int run_second_process(const std::string& test, const std::filesystem::path& file, const std::string& plan) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv(kSecondProcessFile, file.c_str(), 1);
    setenv(kSecondProcessPlan, plan.c_str(), 1);
    std::string filter = "--gtest_filter=" + test;
    char self[] = "/proc/self/exe";
    char* argv[] = {self, filter.data(), nullptr};
    execv(self, argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// BERT-base's feed-forward layer for one token: small enough to tune in a test.
Graph bert_one_token() {
  GraphFile file = read_graph_file(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs/bert_base_mlp.toml").value();
  std::size_t set = 0;
  while (file.shape_sets[set].name != "tokens_1") ++set;
  Graph graph = make_graph(file, set).value();
  (void)graph.validate();
  return graph;
}

TEST_F(SampleGraphs, AWinnerAmongTheLibrariesIsPickedWithItsKnobsByASecondProcess) {
  char pattern[] = "/tmp/tunekit-engines-process-XXXXXX";
  const std::filesystem::path folder = mkdtemp(pattern);
  const std::filesystem::path file = folder / "overrides.json";
  Graph graph = bert_one_token();
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  // Every candidate sets a knob, so that the winner's knobs are part of what
  // the second process must pick.
  ASSERT_TRUE(graph.add_engine(kMatmulTunekitEngine, {{"tile_m", std::int64_t{96}}}).is_good());
  ASSERT_TRUE(graph.add_engine(kMatmulTunekitEngine, {{"threads", std::int64_t{1}}, {"tile_k", std::int64_t{128}}}).is_good());
  ASSERT_TRUE(graph.add_engine(kMatmulTunekitRowSplitEngine, {{"threads", std::int64_t{1}}}).is_good());
  ASSERT_TRUE(graph.add_engine(kMatmulOpenblasEngine, {{"threads", std::int64_t{1}}}).is_good());
  ASSERT_TRUE(graph.add_engine(kMatmulBlisEngine, {{"threads", std::int64_t{1}}}).is_good());
  Buffers buffers(graph.operation_graph());
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 5;
  std::vector<AutotuneResult> results;
  std::vector<std::byte> workspace(std::size_t{1} << 20);
  const Error tuned = graph.autotune(handle_.get(), buffers.pack, workspace.data(),
                                     static_cast<std::int64_t>(workspace.size()), config,
                                     AutotuneStorageConfig{file, true}, &results);
  ASSERT_TRUE(tuned.is_good()) << tuned.message();
  ASSERT_FALSE(results.empty());
  ASSERT_TRUE(results[0].succeeded);

  // The winner's plan name, as a graph with only that candidate names it.
  Graph named = bert_one_token();
  ASSERT_TRUE(named.build_operation_graph(handle_.get()).is_good());
  std::map<std::string, KnobValue> values;
  for (const KnobSetting& knob : results[0].knob_settings) values[knob.knob_id] = knob.value;
  ASSERT_TRUE(named.create_execution_plan_ext(results[0].engine_id, values).is_good());
  std::string plan;
  ASSERT_TRUE(named.get_plan_name_at_index(0, plan).is_good());
  std::printf("[engines] autotuned winner for BERT-base fc1, one token: %s\n", plan.c_str());
  EXPECT_NE(plan.find('['), std::string::npos) << "the plan name shows the winner's knobs: " << plan;

  EXPECT_EQ(run_second_process("SampleGraphs.SecondProcessPicksTheStoredWinner", file, plan), 0);
  std::filesystem::remove_all(folder);
}

TEST_F(SampleGraphs, SecondProcessPicksTheStoredWinner) {
  const char* file = std::getenv(kSecondProcessFile);
  const char* plan = std::getenv(kSecondProcessPlan);
  if (!file || !plan) GTEST_SKIP() << "runs as the second process of AWinnerAmongTheLibrariesIsPickedWithItsKnobsByASecondProcess";
  setenv(kOverridePathVariable, file, 1);
  Graph graph = bert_one_token();
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  ASSERT_TRUE(graph.create_execution_plans().is_good());
  std::string first;
  ASSERT_TRUE(graph.get_plan_name_at_index(0, first).is_good());
  EXPECT_EQ(first, plan);
  ASSERT_TRUE(graph.check_support().is_good());
  ASSERT_TRUE(graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_good());
  Buffers buffers(graph.operation_graph());
  std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
  ASSERT_TRUE(graph.execute(handle_.get(), buffers.pack, workspace.data()).is_good());
  for (std::int64_t uid : buffers.outputs) {
    for (float x : buffers.data.at(uid)) ASSERT_TRUE(std::isfinite(x));
  }
}

}  // namespace
}  // namespace tunekit::engines
