// The CPU convolution engines (tunekit's im2col, 1x1 and direct, oneDNN's with each
// algorithm and implementation) against a double-precision direct
// convolution on random inputs: both layouts, padding, stride, dilation,
// bias and relu, outputs poisoned first; workspace estimates against what
// compile reports; what they refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <fmt/format.h>

#include <random>

#include "engine_test_fixture.hpp"
#include "tunekit/engines/conv_find_engine.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {
namespace {

using namespace tunekit::graph;

struct ConvCase {
  std::int64_t n, c, h, w, k, r, s;
  std::int64_t pad = 0, stride = 1, dilation = 1;
  bool nhwc = false, bias = false, relu = false;
  std::int64_t groups = 1;
  std::string describe() const {
    return fmt::format("{}x{}x{}x{} k{} {}x{} pad {} stride {} dilation {} groups {}{}{}{}", n, c, h, w, k, r, s, pad,
                       stride, dilation, groups, nhwc ? " nhwc" : " nchw", bias ? " +bias" : "", relu ? " +relu" : "");
  }
  std::int64_t p() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  std::int64_t q() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

std::vector<std::int64_t> strides_of(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, bool nhwc) {
  (void)n;
  return nhwc ? std::vector<std::int64_t>{h * w * c, 1, w * c, c} : std::vector<std::int64_t>{c * h * w, h * w, w, 1};
}

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// conv_fprop of x and w into a new virtual tensor of `dims`.
Tensor conv(Graph& graph, Tensor x, Tensor w, std::vector<std::int64_t> dims, std::int64_t pad, std::int64_t stride,
            std::int64_t dilation, std::int64_t groups = 1) {
  Tensor y = std::make_shared<TensorAttributes>(TensorAttributes().set_dim(std::move(dims)).set_is_virtual(true));
  Operation op;
  op.kind = OperationKind::CONV_FPROP;
  op.inputs = {{"X", std::move(x)}, {"W", std::move(w)}};
  op.outputs = {{"Y", y}};
  op.list_attributes = {{"padding", {pad, pad}}, {"stride", {stride, stride}}, {"dilation", {dilation, dilation}}};
  if (groups != 1) op.attributes["groups"] = groups;
  graph.add_operation(std::move(op));
  return y;
}

class ConvEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto registry = std::make_shared<EngineRegistry>();
    ASSERT_TRUE(register_cpu_engines(*registry).is_good());
    registry_ = registry;
    handle_ = std::move(Handle::create(device_, registry_)).value();
  }

  // uids: X 1, W 2, bias 3, output 4.
  static void build(Graph& graph, const ConvCase& c) {
    Tensor x = graph.tensor(
        TensorAttributes().set_uid(1).set_dim({c.n, c.c, c.h, c.w}).set_stride(strides_of(c.n, c.c, c.h, c.w, c.nhwc)));
    Tensor w = graph.tensor(TensorAttributes().set_uid(2).set_dim({c.k, c.c / c.groups, c.r, c.s}));
    Tensor y = conv(graph, x, w, {c.n, c.k, c.p(), c.q()}, c.pad, c.stride, c.dilation, c.groups);
    y->set_stride(strides_of(c.n, c.k, c.p(), c.q(), c.nhwc));
    if (c.bias) y = graph.pointwise(y, graph.tensor(TensorAttributes().set_uid(3).set_dim({1, c.k, 1, 1})), PointwiseMode::ADD);
    if (c.relu) y = graph.pointwise(y, PointwiseMode::RELU);
    y->set_output(true).set_uid(4).set_stride(strides_of(c.n, c.k, c.p(), c.q(), c.nhwc));
  }

  void check(std::int64_t engine, const ConvCase& c, const std::map<std::string, KnobValue>& knobs) {
    SCOPED_TRACE(registry_->find(engine)->descriptor().name + " " + c.describe());
    const std::vector<float> x = random_values(static_cast<std::size_t>(c.n * c.c * c.h * c.w), 21);
    const std::int64_t cg = c.c / c.groups, kg = c.k / c.groups;
    const std::vector<float> w = random_values(static_cast<std::size_t>(c.k * cg * c.r * c.s), 22);
    const std::vector<float> bias = random_values(static_cast<std::size_t>(c.k), 23);
    Graph graph;
    build(graph, c);
    const Error built = graph.build_operation_graph(handle_.get());
    ASSERT_TRUE(built.is_good()) << built.message();
    const Error created = graph.create_execution_plan_ext(engine, knobs);
    ASSERT_TRUE(created.is_good()) << created.message();
    const Error planned = graph.build_plans(BuildPlanPolicy::ALL);
    ASSERT_TRUE(planned.is_good()) << planned.message();
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    const std::int64_t p = c.p(), q = c.q();
    std::vector<float> out(static_cast<std::size_t>(c.n * c.k * p * q), std::nanf(""));
    VariantPack pack{{1, const_cast<float*>(x.data())}, {2, const_cast<float*>(w.data())}, {4, out.data()}};
    if (c.bias) pack[3] = const_cast<float*>(bias.data());
    const Error executed = graph.execute(handle_.get(), pack, workspace.data());
    ASSERT_TRUE(executed.is_good()) << executed.message();
    const auto xs = strides_of(c.n, c.c, c.h, c.w, c.nhwc);
    const auto ys = strides_of(c.n, c.k, p, q, c.nhwc);
    for (std::int64_t in = 0; in < c.n; ++in) {
      for (std::int64_t k = 0; k < c.k; ++k) {
        for (std::int64_t oh = 0; oh < p; ++oh) {
          for (std::int64_t ow = 0; ow < q; ++ow) {
            double sum = c.bias ? bias[static_cast<std::size_t>(k)] : 0.0;
            for (std::int64_t ch = k / kg * cg; ch < (k / kg + 1) * cg; ++ch) {
              for (std::int64_t r = 0; r < c.r; ++r) {
                for (std::int64_t s = 0; s < c.s; ++s) {
                  const std::int64_t ih = oh * c.stride - c.pad + r * c.dilation;
                  const std::int64_t iw = ow * c.stride - c.pad + s * c.dilation;
                  if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                  sum += static_cast<double>(x[static_cast<std::size_t>(in * xs[0] + ch * xs[1] + ih * xs[2] + iw * xs[3])]) *
                         w[static_cast<std::size_t>(((k * cg + ch % cg) * c.r + r) * c.s + s)];
                }
              }
            }
            const double expected = c.relu ? std::max(sum, 0.0) : sum;
            const float got = out[static_cast<std::size_t>(in * ys[0] + k * ys[1] + oh * ys[2] + ow * ys[3])];
            ASSERT_LE(std::fabs(got - expected), 1e-4 * std::max(1.0, std::fabs(expected)))
                << "at n " << in << " k " << k << " (" << oh << ", " << ow << "): got " << got << ", expected " << expected;
          }
        }
      }
    }
  }

  platform::CpuDevice device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<Handle> handle_;
};

const std::vector<ConvCase>& general_cases() {
  static const std::vector<ConvCase> cases{
      {2, 3, 9, 11, 4, 3, 3, 1, 1, 1, false, true, true}, {2, 3, 9, 11, 4, 3, 3, 1, 1, 1, true, true, true},
      {1, 5, 12, 10, 6, 3, 3, 0, 2, 1, false, false, false}, {1, 5, 12, 10, 6, 3, 3, 2, 1, 2, true, true, false},
      {3, 8, 7, 6, 16, 1, 1, 0, 1, 1, true, true, true},  {3, 8, 7, 6, 16, 1, 1, 0, 1, 1, false, false, true},
  };
  return cases;
}

TEST_F(ConvEngines, Im2colMatchesTheDoubleReferenceOnEveryLayoutPaddingStrideAndDilation) {
  for (const ConvCase& c : general_cases()) {
    check(kConvTunekitIm2colEngine, c, {});
    check(kConvTunekitIm2colEngine, c, {{"threads", std::int64_t{1}}});
  }
}

// Output channels that fill no block of any path (37, 6), more than one
// block, rows whose pixels end in a partial tile, filters of 1 to 5 taps a
// side, both layouts with and without padding (border pixels with only the
// taps inside X; a filter wider than the image, so that no pixel is
// interior), stride and dilation.
const std::vector<ConvCase>& direct_cases() {
  static const std::vector<ConvCase> cases{
      {1, 7, 13, 17, 37, 3, 3, 1, 1, 1, true, true, true},   {1, 7, 13, 17, 37, 3, 3, 1, 1, 1, false, true, false},
      {2, 6, 15, 15, 20, 3, 3, 0, 2, 2, true, false, true},  {1, 16, 9, 25, 70, 5, 5, 2, 1, 1, true, true, false},
      {2, 12, 8, 8, 48, 1, 1, 0, 1, 1, true, true, true},    {1, 3, 23, 23, 8, 7, 7, 3, 2, 1, true, true, true},
      {1, 5, 12, 10, 6, 1, 3, 0, 1, 1, false, false, false}, {1, 41, 6, 7, 19, 3, 3, 1, 1, 1, true, true, true},
      {1, 41, 6, 7, 19, 3, 3, 1, 1, 1, false, true, true},   {1, 4, 3, 3, 16, 5, 5, 2, 1, 1, true, true, false},
      {1, 4, 3, 3, 16, 5, 5, 2, 1, 1, false, true, false},
      // A last block of exactly one vector of output channels (48 on
      // AVX-512, 24 on AVX2), summed in parts too (the channel_block knob).
      {1, 40, 6, 6, 48, 3, 3, 1, 1, 1, true, true, true},    {1, 20, 6, 6, 24, 3, 3, 1, 1, 1, false, true, true},
  };
  return cases;
}

// Grouped convolutions: two groups, groups of one input channel and
// several outputs, depthwise (one in, one out per group), in both layouts;
// a depthwise one of two output rows and 72 channels, whose rows are split
// into parts of the channel blocks (too few rows for 4 tasks per thread;
// the last part shorter, or empty where the blocks do not divide).
const std::vector<ConvCase>& grouped_cases() {
  static const std::vector<ConvCase> cases{
      {1, 72, 2, 9, 72, 3, 3, 1, 1, 1, true, true, true, 72},  {1, 72, 2, 9, 72, 3, 3, 1, 1, 1, false, true, false, 72},
      {2, 8, 9, 11, 12, 3, 3, 1, 1, 1, true, true, true, 2},    {2, 8, 9, 11, 12, 3, 3, 1, 1, 1, false, true, true, 2},
      {1, 6, 10, 10, 18, 3, 3, 0, 2, 1, true, false, false, 6}, {1, 40, 9, 13, 40, 3, 3, 1, 1, 1, true, true, true, 40},
      {1, 40, 9, 13, 40, 3, 3, 1, 2, 1, false, true, false, 40}, {2, 12, 7, 7, 24, 1, 1, 0, 1, 1, true, true, false, 4},
      {1, 24, 5, 4, 24, 5, 5, 2, 1, 1, true, true, true, 24},
      {2, 12, 7, 7, 24, 1, 1, 0, 1, 1, false, false, true, 4},
      // Depthwise with a last block of exactly one vector on AVX-512 (48
      // channels: 32 + 16), on AVX2 (40 above: 16 + 16 + 8) and portable (44:
      // five blocks of 8 and 4).
      {1, 48, 7, 9, 48, 3, 3, 1, 1, 1, true, true, true, 48},  {2, 44, 5, 6, 44, 3, 3, 1, 1, 1, false, true, false, 44},
  };
  return cases;
}

TEST_F(ConvEngines, GroupedConvolutionsMatchTheDoubleReferenceOnEveryEngine) {
  for (const ConvCase& c : grouped_cases()) {
    Graph graph;
    build(graph, c);
    const Error built = graph.build_operation_graph(handle_.get());
    ASSERT_TRUE(built.is_good()) << built.message();
    for (std::int64_t id : {kConvTunekitIm2colEngine, kConvTunekit1x1Engine, kConvTunekitDirectEngine, kConvOnednnEngine,
                            kConvFindEngine}) {
      if (id == kConvTunekit1x1Engine && c.r != 1) continue;
      check(id, c, {});
    }
    check(kConvFindEngine, c, {{"global.benchmarking", std::int64_t{1}}});
  }
  for (cpu::CpuIsa isa : runnable_isas()) {
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const ConvCase& c : grouped_cases()) {
      check(kConvTunekitDirectEngine, c, {{"threads", std::int64_t{1}}});
      if (c.pad > 0) {
        // The tiles of output channels with X copied (lanes of groups copy it
        // always and refuse the knob; depthwise convolutions have no lanes knob).
        std::map<std::string, KnobValue> copy{{"padding", std::string("copy")}};
        if (c.groups > 1 && !(c.c == c.groups && c.k == c.groups)) copy["lanes"] = std::string("channels");
        check(kConvTunekitDirectEngine, c, copy);
        check(kConvTunekitDirectEngine, c, {{"padding", std::string("in_place")}});
      }
    }
  }
}

// Groups whose lanes hold groups (the lanes knob): channels per group that
// the tiles' transposes handle in registers (1, 2, 4, 8, 16) and others (3,
// 5), output channels per group of every tile width J (4: whole groups in a
// tile, or a group in several tiles; 2; 1; 3 and 6 in tiles of 1 and 2),
// groups that fill no lane block (the last partial on every path), both
// layouts, stride, dilation and no padding.
const std::vector<ConvCase>& lanes_of_groups_cases() {
  static const std::vector<ConvCase> cases{
      {1, 64, 7, 9, 64, 3, 3, 1, 1, 1, true, true, true, 16},   {1, 64, 7, 9, 64, 3, 3, 1, 1, 1, false, true, true, 16},
      {2, 40, 6, 7, 40, 3, 3, 1, 1, 1, true, true, false, 20},  {1, 40, 9, 10, 40, 3, 3, 1, 2, 1, true, false, true, 5},
      {1, 32, 5, 5, 32, 3, 3, 1, 1, 1, true, true, true, 2},    {1, 24, 8, 8, 48, 3, 3, 2, 1, 2, true, true, true, 8},
      {1, 16, 6, 6, 32, 3, 3, 1, 1, 1, false, true, false, 16}, {1, 32, 6, 6, 8, 3, 3, 1, 1, 1, true, true, true, 8},
      {1, 35, 8, 8, 21, 3, 3, 0, 1, 1, true, true, true, 7},    {1, 24, 7, 7, 18, 1, 1, 0, 1, 1, false, true, true, 6},
  };
  return cases;
}

TEST_F(ConvEngines, DirectWithLanesOfGroupsMatchesTheDoubleReferenceOnEveryInstructionSetPath) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const ConvCase& c : lanes_of_groups_cases()) {
      check(kConvTunekitDirectEngine, c, {{"lanes", std::string("groups")}});
      check(kConvTunekitDirectEngine, c, {{"lanes", std::string("groups")}, {"threads", std::int64_t{1}}});
      check(kConvTunekitDirectEngine, c, {{"lanes", std::string("channels")}});
    }
  }
}

TEST_F(ConvEngines, DirectRefusesLanesOfGroupsWhereTheyDoNotApply) {
  const Engine& engine = *registry_->find(kConvTunekitDirectEngine);
  auto refusal = [&](const ConvCase& c, const std::vector<KnobSetting>& settings) {
    Graph graph;
    build(graph, c);
    EXPECT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const KnobValues knobs = engine.descriptor().resolve(settings);
    Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
    EXPECT_FALSE(engine.compile(graph.operation_graph(), knobs, device_).ok());
    return estimate.ok() ? std::string("accepted") : estimate.error().message();
  };
  const ConvCase plain{1, 8, 9, 9, 16, 3, 3, 1, 1, 1, true, true, true};
  const ConvCase depthwise{1, 40, 9, 13, 40, 3, 3, 1, 1, 1, true, true, true, 40};
  const ConvCase grouped{1, 64, 7, 9, 64, 3, 3, 1, 1, 1, true, true, true, 16};
  const KnobSetting groups{"lanes", std::string("groups")};
  EXPECT_EQ(refusal(plain, {groups}), "lanes groups: this convolution has one group");
  EXPECT_EQ(refusal(plain, {{"lanes", std::string("channels")}}), "lanes: this convolution has one group");
  EXPECT_EQ(refusal(depthwise, {groups}), "lanes: a depthwise convolution has tiles of its own (their lanes are groups)");
  EXPECT_EQ(refusal(grouped, {groups, {"channel_block", std::int64_t{16}}}),
            "lanes groups: sums every channel in one pass");
  EXPECT_EQ(refusal(grouped, {groups, {"order", std::string("rows")}}), "lanes groups: runs by rows of lane blocks");
  EXPECT_EQ(refusal(grouped, {groups, {"padding", std::string("in_place")}}),
            "lanes groups: always copies X (with its padding)");
  const std::string copies = "padding copy: the tiles of lanes of groups always copy X";
  EXPECT_EQ(refusal(grouped, {{"padding", std::string("copy")}}), copies);
  EXPECT_EQ(refusal(grouped, {groups, {"padding", std::string("copy")}}), copies);
  // auto keeps the tiles of channels where another knob asks for what only they do.
  check(kConvTunekitDirectEngine, grouped, {{"padding", std::string("in_place")}, {"order", std::string("blocks")}});
}

TEST_F(ConvEngines, DirectRefusesKnobsWithNothingToChoose) {
  const ConvCase c{1, 40, 9, 13, 40, 3, 3, 1, 1, 1, true, true, true, 40};
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const Engine& engine = *registry_->find(kConvTunekitDirectEngine);
  for (const auto& [knob, value] : std::vector<std::pair<std::string, KnobValue>>{
           {"channel_block", KnobValue(std::int64_t{16})}, {"order", KnobValue(std::string("blocks"))}}) {
    const KnobValues knobs = engine.descriptor().resolve({KnobSetting{knob, value}});
    Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
    ASSERT_FALSE(estimate.ok()) << knob;
    EXPECT_EQ(estimate.error().code(), ErrorCode::NOT_SUPPORTED);
    EXPECT_NE(estimate.error().message().find(knob), std::string::npos) << estimate.error().message();
    EXPECT_FALSE(engine.compile(graph.operation_graph(), knobs, device_).ok()) << knob;
  }
  // Without padding, the padding knob has nothing to choose either.
  const ConvCase unpadded{1, 8, 9, 9, 16, 3, 3, 0, 1, 1, true, true, true};
  Graph plain;
  build(plain, unpadded);
  ASSERT_TRUE(plain.build_operation_graph(handle_.get()).is_good());
  for (const char* padding : {"copy", "in_place"}) {
    const KnobValues knobs = engine.descriptor().resolve({KnobSetting{"padding", std::string(padding)}});
    Result<std::int64_t> estimate = engine.estimate_workspace(plain.operation_graph(), knobs);
    ASSERT_FALSE(estimate.ok()) << padding;
    EXPECT_EQ(estimate.error().message(), "padding: this convolution has no padding");
    EXPECT_FALSE(engine.compile(plain.operation_graph(), knobs, device_).ok()) << padding;
  }
  check(kConvTunekitDirectEngine, unpadded, {});
  // The same knobs on a grouped convolution that is not depthwise still apply.
  const ConvCase grouped{2, 8, 9, 11, 12, 3, 3, 1, 1, 1, true, true, true, 2};
  check(kConvTunekitDirectEngine, grouped, {{"channel_block", std::int64_t{16}}, {"order", std::string("blocks")}});
}

TEST_F(ConvEngines, DirectMatchesTheDoubleReferenceOnEveryInstructionSetPath) {
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const auto* cases : {&general_cases(), &direct_cases()}) {
      for (const ConvCase& c : *cases) {
        check(kConvTunekitDirectEngine, c, {});
        check(kConvTunekitDirectEngine, c, {{"threads", std::int64_t{1}}});
        // The input channels in parts (the last one shorter where they do
        // not divide), Y holding the partial sums.
        check(kConvTunekitDirectEngine, c, {{"channel_block", std::int64_t{16}}});
        // Both task orders, whichever auto chose.
        check(kConvTunekitDirectEngine, c, {{"order", std::string("rows")}});
        check(kConvTunekitDirectEngine, c, {{"order", std::string("blocks")}, {"channel_block", std::int64_t{32}}});
        // X copied with its padding, and the border pixels on their own,
        // whichever auto chose (a convolution without padding refuses both).
        if (c.pad > 0) {
          check(kConvTunekitDirectEngine, c, {{"padding", std::string("copy")}});
          check(kConvTunekitDirectEngine, c, {{"padding", std::string("in_place")}, {"order", std::string("blocks")}});
        }
      }
    }
  }
}

// A NaN in X reaches every output it enters (without ReLU) on every
// instruction-set path: the tiles' bias and store path keep it a NaN.
TEST_F(ConvEngines, DirectPropagatesANaNOfTheInput) {
  const ConvCase c{1, 16, 6, 6, 32, 1, 1, 0, 1, 1, true, true, false};
  for (cpu::CpuIsa isa : runnable_isas()) {
    SCOPED_TRACE(std::string(cpu::to_string(isa)));
    auto forced = cpu::ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    std::vector<float> x = random_values(static_cast<std::size_t>(c.n * c.c * c.h * c.w), 31);
    const std::vector<float> w = random_values(static_cast<std::size_t>(c.k * c.c), 32);
    const std::vector<float> bias = random_values(static_cast<std::size_t>(c.k), 33);
    const std::int64_t poisoned_pixel = 2 * c.w + 3;
    x[static_cast<std::size_t>(poisoned_pixel * c.c + 5)] = std::nanf("");
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    ASSERT_TRUE(graph.create_execution_plan_ext(kConvTunekitDirectEngine, {}).is_good());
    const Error planned = graph.build_plans(BuildPlanPolicy::ALL);
    ASSERT_TRUE(planned.is_good()) << planned.message();
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 1);
    std::vector<float> out(static_cast<std::size_t>(c.k * c.h * c.w), 0.0f);
    VariantPack pack{{1, x.data()}, {2, const_cast<float*>(w.data())}, {3, const_cast<float*>(bias.data())},
                     {4, out.data()}};
    ASSERT_TRUE(graph.execute(handle_.get(), pack, workspace.data()).is_good());
    for (std::int64_t pixel = 0; pixel < c.h * c.w; ++pixel) {
      for (std::int64_t k = 0; k < c.k; ++k) {
        const float y = out[static_cast<std::size_t>(pixel * c.k + k)];
        EXPECT_EQ(std::isnan(y), pixel == poisoned_pixel) << "pixel " << pixel << " channel " << k << ": " << y;
      }
    }
  }
}

TEST_F(ConvEngines, OneByOneMatchesTheReferenceAndRefusesOtherFilters) {
  for (const ConvCase& c : general_cases()) {
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const Error applicable = registry_->find(kConvTunekit1x1Engine)->check_applicable(graph.operation_graph(), device_);
    if (c.r == 1 && c.s == 1) {
      EXPECT_TRUE(applicable.is_good()) << applicable.message();
      check(kConvTunekit1x1Engine, c, {});
    } else {
      EXPECT_EQ(applicable.message(), "only 1x1 filters with stride 1 and no padding");
    }
  }
}

TEST_F(ConvEngines, OnednnMatchesTheReferenceWithEachAlgorithmAndImplementation) {
  for (const ConvCase& c : general_cases()) {
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const ConvPattern pattern = match_conv(graph.operation_graph()).value();
    for (const char* algorithm : {"auto", "direct", "winograd"}) {
      const std::vector<std::string> implementations = onednn_conv_implementations(pattern, algorithm);
      if (std::string(algorithm) != "winograd") {
        EXPECT_FALSE(implementations.empty()) << algorithm;
      }
      for (std::size_t i = 0; i < implementations.size(); ++i) {
        check(kConvOnednnEngine, c, {{"algorithm", std::string(algorithm)}, {"implementation", static_cast<std::int64_t>(i)}});
      }
    }
  }
}

// oneDNN 2.6 has Winograd only for blocked X and Y (on AVX-512): the engine
// lets the primitive choose their layout and reorders the graph's NHWC or
// NCHW tensors in and out of the workspace.
TEST_F(ConvEngines, OnednnWinogradRunsOnTheGraphsOwnLayoutsWhereOnednnHasIt) {
  for (const bool nhwc : {true, false}) {
    const ConvCase c{2, 32, 10, 12, 48, 3, 3, 1, 1, 1, nhwc, true, true};
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    const ConvPattern pattern = match_conv(graph.operation_graph()).value();
    const std::vector<std::string> implementations = onednn_conv_implementations(pattern, "winograd");
    if (implementations.empty()) {
      GTEST_SKIP() << "oneDNN " << onednn_version() << " (" << onednn_isa() << ") has no Winograd convolution here";
    }
    const Engine& engine = *registry_->find(kConvOnednnEngine);
    for (std::size_t i = 0; i < implementations.size(); ++i) {
      SCOPED_TRACE(implementations[i]);
      // The workspace holds X and Y in the primitive's layout besides the
      // filter and scratchpad: the estimate is what compile reports.
      const KnobValues knobs = engine.descriptor().resolve(
          {KnobSetting{"algorithm", std::string("winograd")}, KnobSetting{"implementation", static_cast<std::int64_t>(i)}});
      Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
      auto compiled = engine.compile(graph.operation_graph(), knobs, device_);
      ASSERT_TRUE(estimate.ok() && compiled.ok());
      EXPECT_EQ(*estimate, (*compiled)->workspace_size());
      EXPECT_GE(*estimate, (c.n * c.c * c.h * c.w + c.n * c.k * c.p() * c.q()) * 4);
      check(kConvOnednnEngine, c, {{"algorithm", std::string("winograd")}, {"implementation", static_cast<std::int64_t>(i)}});
    }
    // On one thread (oneDNN's list may be shorter there: its first).
    check(kConvOnednnEngine, c, {{"algorithm", std::string("winograd")}, {"threads", std::int64_t{1}}});

    // The plan keeps its transformed filter: a filter changed in place (same
    // address, other bytes) is transformed again, one left alone is not
    // (the results then still follow it), compared with tunekit's im2col
    // engine on the same buffers.
    auto plan = [&](std::int64_t engine, const std::map<std::string, KnobValue>& knobs) {
      auto g = std::make_unique<Graph>();
      build(*g, c);
      EXPECT_TRUE(g->build_operation_graph(handle_.get()).is_good());
      EXPECT_TRUE(g->create_execution_plan_ext(engine, knobs).is_good());
      EXPECT_TRUE(g->build_plans(BuildPlanPolicy::ALL).is_good());
      return g;
    };
    auto winograd = plan(kConvOnednnEngine, {{"algorithm", std::string("winograd")}});
    auto im2col = plan(kConvTunekitIm2colEngine, {});
    std::vector<float> x = random_values(static_cast<std::size_t>(c.n * c.c * c.h * c.w), 31);
    std::vector<float> w = random_values(static_cast<std::size_t>(c.k * c.c * c.r * c.s), 32);
    std::vector<float> bias = random_values(static_cast<std::size_t>(c.k), 33);
    const std::size_t outputs = static_cast<std::size_t>(c.n * c.k * c.p() * c.q());
    std::vector<float> got(outputs), expected(outputs);
    std::vector<std::byte> workspace(static_cast<std::size_t>(
        std::max(winograd->get_workspace_size(), im2col->get_workspace_size()) + 1));
    for (int round = 0; round < 4; ++round) {
      SCOPED_TRACE(round);
      if (round == 1 || round == 3) {
        for (std::size_t i = 0; i < w.size(); i += 7) w[i] = -0.5f * w[i] + 0.25f;  // one filter element in seven
      }
      std::fill(got.begin(), got.end(), std::nanf(""));
      VariantPack ours{{1, x.data()}, {2, w.data()}, {3, bias.data()}, {4, got.data()}};
      VariantPack theirs{{1, x.data()}, {2, w.data()}, {3, bias.data()}, {4, expected.data()}};
      ASSERT_TRUE(winograd->execute(handle_.get(), ours, workspace.data()).is_good());
      ASSERT_TRUE(im2col->execute(handle_.get(), theirs, workspace.data()).is_good());
      for (std::size_t i = 0; i < outputs; ++i) {
        ASSERT_LE(std::fabs(got[i] - expected[i]), 1e-4 * std::max(1.0f, std::fabs(expected[i]))) << i;
      }
    }
  }
}

TEST_F(ConvEngines, WorkspaceEstimatesEqualWhatCompileReports) {
  std::vector<ConvCase> cases = general_cases();
  cases.insert(cases.end(), direct_cases().begin(), direct_cases().end());
  cases.insert(cases.end(), grouped_cases().begin(), grouped_cases().end());
  cases.insert(cases.end(), lanes_of_groups_cases().begin(), lanes_of_groups_cases().end());
  for (const ConvCase& c : cases) {
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    for (std::int64_t id : {kConvTunekitIm2colEngine, kConvTunekit1x1Engine, kConvTunekitDirectEngine, kConvOnednnEngine}) {
      const Engine& engine = *registry_->find(id);
      if (engine.check_applicable(graph.operation_graph(), device_).is_bad()) continue;
      const KnobValues knobs = engine.descriptor().resolve({});
      Result<std::int64_t> estimate = engine.estimate_workspace(graph.operation_graph(), knobs);
      ASSERT_TRUE(estimate.ok());
      auto compiled = engine.compile(graph.operation_graph(), knobs, device_);
      ASSERT_TRUE(compiled.ok()) << compiled.error().message();
      EXPECT_EQ(*estimate, (*compiled)->workspace_size()) << engine.descriptor().name << " " << c.describe();
      if (id == kConvTunekitIm2colEngine) {
        EXPECT_EQ(*estimate, c.c * c.r * c.s * c.p() * c.q() * 4) << c.describe();
      }
      if (id == kConvTunekitDirectEngine) {
        // The filter in whole blocks of output channels, plus an NHWC copy
        // of an NCHW input.
        const std::int64_t block = cpu::active_isa() == cpu::CpuIsa::AVX512 ? 32
                                   : cpu::active_isa() == cpu::CpuIsa::AVX2 ? 16 : 8;
        // A depthwise one (groups = C = K) in blocks of channels.
        const std::int64_t kg = c.k / c.groups;
        const bool depthwise = c.groups == c.c && c.groups == c.k;
        const std::int64_t filter = depthwise ? (c.k + block - 1) / block * block * c.r * c.s
                                              : c.groups * ((kg + block - 1) / block * block) * (c.c / c.groups) * c.r * c.s;
        // The input padded with zeros where more than an eighth of the
        // output pixels have a tap in the padding (counted here one by one).
        std::int64_t border = 0;
        for (std::int64_t oh = 0; oh < c.p(); ++oh) {
          for (std::int64_t ow = 0; ow < c.q(); ++ow) {
            bool outside = false;
            for (std::int64_t r = 0; r < c.r; ++r) {
              for (std::int64_t s = 0; s < c.s; ++s) {
                const std::int64_t ih = oh * c.stride - c.pad + r * c.dilation, iw = ow * c.stride - c.pad + s * c.dilation;
                outside = outside || ih < 0 || ih >= c.h || iw < 0 || iw >= c.w;
              }
            }
            border += outside ? 1 : 0;
          }
        }
        const bool padded = 8 * border > c.p() * c.q();
        const std::int64_t input = padded ? c.n * (c.h + 2 * c.pad) * (c.w + 2 * c.pad) * c.c
                                   : c.nhwc ? 0 : c.n * c.h * c.w * c.c;
        // Lanes of groups (auto: groups of at most half a block of output
        // channels): the filter, the bias and X with its padding in whole
        // lane blocks of groups.
        const std::int64_t lanes = block / 2, cg = c.c / c.groups;
        const std::int64_t lane_blocks = (c.groups + lanes - 1) / lanes;
        const bool grouped = !depthwise && c.groups > 1 && 2 * kg <= block;
        const std::int64_t grouped_floats = lane_blocks * lanes * kg * (c.r * c.s * cg + 1) +
                                            c.n * (c.h + 2 * c.pad) * (c.w + 2 * c.pad) * lane_blocks * cg * lanes;
        // A cache line more, to align the parts, where there are any.
        const std::int64_t used = (grouped ? grouped_floats : filter + input) * 4;
        EXPECT_EQ(*estimate, used > 0 ? used + 64 : 0) << c.describe();
      }
    }
  }
}

TEST_F(ConvEngines, FindRunsTheHeuristicChoiceUntilPrimedAndTheMeasuredOneAfter) {
  const auto& find = dynamic_cast<const ConvFindEngine&>(*registry_->find(kConvFindEngine));
  EXPECT_TRUE(find.descriptor().supports_exhaustive());
  const ConvCase c{1, 16, 20, 20, 16, 3, 3, 1, 1, 1, true, true, true};
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  const int threads = static_cast<int>(find.descriptor().resolve({}).get_int("threads"));
  EXPECT_EQ(find.choice(graph.operation_graph(), device_, threads), "CPU_CONV_ONEDNN[algorithm=auto]");
  EXPECT_FALSE(find.measured(graph.operation_graph(), threads));
  check(kConvFindEngine, c, {});

  // A priming plan measures every candidate, keeps the fastest, and its
  // outputs are still the convolution's.
  check(kConvFindEngine, c, {{"global.benchmarking", std::int64_t{1}}});
  EXPECT_TRUE(find.measured(graph.operation_graph(), threads));
  const std::optional<std::string> measured = find.choice(graph.operation_graph(), device_, threads);
  ASSERT_TRUE(measured.has_value());
  std::printf("[engines] CPU_CONV_FIND measured %s for %s\n", measured->c_str(), c.describe().c_str());
  check(kConvFindEngine, c, {});

  // Another thread count is a choice of its own.
  EXPECT_FALSE(find.measured(graph.operation_graph(), threads + 1));
}

// Unprimed, CPU_CONV_FIND runs the direct convolution first where its tiles
// hold every output channel of a group in lanes of groups (1, 2 or 4 per
// group), and the order's first elsewhere: oneDNN's auto.
TEST_F(ConvEngines, FindsHeuristicRunsTheDirectConvolutionFirstOnGroupsOfFourChannelsOrFewer) {
  const auto& find = dynamic_cast<const ConvFindEngine&>(*registry_->find(kConvFindEngine));
  const int threads = static_cast<int>(find.descriptor().resolve({}).get_int("threads"));
  for (const auto& [c, expected] : std::vector<std::pair<ConvCase, std::string>>{
           {{1, 64, 9, 9, 64, 3, 3, 1, 1, 1, true, true, true, 16}, "CPU_CONV_TUNEKIT_DIRECT"},
           {{1, 32, 9, 9, 64, 3, 3, 1, 1, 1, false, true, true, 16}, "CPU_CONV_TUNEKIT_DIRECT"},
           // 3 per group run in tiles of one of them (J = 1): not whole groups.
           {{1, 48, 9, 9, 48, 3, 3, 1, 1, 1, true, true, true, 16}, "CPU_CONV_ONEDNN[algorithm=auto]"},
           {{1, 64, 9, 9, 64, 3, 3, 1, 1, 1, true, true, true, 4}, "CPU_CONV_ONEDNN[algorithm=auto]"},
           {{1, 48, 9, 9, 48, 3, 3, 1, 1, 1, true, true, true, 48}, "CPU_CONV_ONEDNN[algorithm=auto]"},
           {{1, 16, 9, 9, 16, 3, 3, 1, 1, 1, true, true, true}, "CPU_CONV_ONEDNN[algorithm=auto]"}}) {
    SCOPED_TRACE(c.describe());
    Graph graph;
    build(graph, c);
    ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
    EXPECT_EQ(find.choice(graph.operation_graph(), device_, threads), expected);
    check(kConvFindEngine, c, {});
  }
}

TEST_F(ConvEngines, ExhaustiveAutotuningPrimesFind) {
  const auto& find = dynamic_cast<const ConvFindEngine&>(*registry_->find(kConvFindEngine));
  const ConvCase c{1, 8, 14, 14, 8, 3, 3, 1, 1, 1, false, true, false};
  Graph graph;
  build(graph, c);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  ASSERT_TRUE(graph.add_engine(kConvFindEngine, {{"threads", std::int64_t{1}}}).is_good());
  std::vector<float> x(static_cast<std::size_t>(c.n * c.c * c.h * c.w), 0.5f);
  std::vector<float> w(static_cast<std::size_t>(c.k * c.c * c.r * c.s), 0.25f);
  std::vector<float> bias(static_cast<std::size_t>(c.k), 1.0f);
  std::vector<float> y(static_cast<std::size_t>(c.n * c.k * c.p() * c.q()));
  VariantPack pack{{1, x.data()}, {2, w.data()}, {3, bias.data()}, {4, y.data()}};
  std::vector<std::byte> workspace(std::size_t{16} << 20);
  AutotuneConfig config;
  config.mode = TuneMode::EXHAUSTIVE;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 2;
  std::vector<AutotuneResult> results;
  const Error tuned = graph.autotune(handle_.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()),
                                     config, {}, &results);
  ASSERT_TRUE(tuned.is_good()) << tuned.message();
  EXPECT_TRUE(find.measured(graph.operation_graph(), 1));
}

TEST_F(ConvEngines, ALayoutThatIsNeitherNchwNorNhwcIsRefused) {
  Graph graph;
  Tensor x = graph.tensor(TensorAttributes().set_uid(1).set_dim({1, 2, 4, 4}).set_stride({64, 16, 4, 1}));  // padded batch
  Tensor w = graph.tensor(TensorAttributes().set_uid(2).set_dim({3, 2, 3, 3}));
  conv(graph, x, w, {1, 3, 4, 4}, 1, 1, 1)->set_output(true).set_uid(4);
  ASSERT_TRUE(graph.build_operation_graph(handle_.get()).is_good());
  for (std::int64_t id : {kConvTunekitIm2colEngine, kConvTunekitDirectEngine, kConvOnednnEngine}) {
    const Error applicable = registry_->find(id)->check_applicable(graph.operation_graph(), device_);
    EXPECT_EQ(applicable.message(), "X must be densely packed NCHW or NHWC");
  }
}

}  // namespace
}  // namespace tunekit::engines
