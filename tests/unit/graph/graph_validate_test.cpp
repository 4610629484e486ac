// Graph::validate and the per-kind operation checks: defaults, wiring, and
// the exact messages naming the operation, the port and the tensor.
#include <gtest/gtest.h>

#include <limits>

#include "tunekit/graph/graph.hpp"

namespace tunekit::graph {
namespace {

Tensor t(std::string name, std::int64_t uid, std::vector<std::int64_t> dims) {
  auto tensor = std::make_shared<TensorAttributes>();
  tensor->set_name(std::move(name)).set_uid(uid).set_dim(std::move(dims));
  return tensor;
}

Tensor v(std::string name, std::vector<std::int64_t> dims) {
  auto tensor = t(std::move(name), 0, std::move(dims));
  *tensor = TensorAttributes().set_name(tensor->get_name()).set_dim(tensor->get_dim()).set_is_virtual(true);
  return tensor;
}

Operation op(OperationKind kind, std::string name, std::map<std::string, Tensor> in, std::map<std::string, Tensor> out,
             std::map<std::string, Value> attributes = {},
             std::map<std::string, std::vector<std::int64_t>> lists = {}) {
  return Operation{kind, std::move(name), std::move(in), std::move(out), std::move(attributes), std::move(lists)};
}

std::string validate_one(Operation operation) {
  Graph graph;
  graph.add_operation(std::move(operation));
  Error error = graph.validate();
  return error.is_good() ? "OK" : error.message();
}

TEST(GraphValidate, MatmulFillsDefaultsAndAcceptsBroadcastBatches) {
  Graph graph;
  auto a = graph.tensor(TensorAttributes().set_name("A").set_dim({2, 4, 8}));
  auto b = graph.tensor(TensorAttributes().set_name("B").set_uid(7).set_dim({1, 8, 3}));
  auto c = graph.matmul(a, b, "mm");
  c->set_output(true);
  ASSERT_TRUE(graph.validate().is_good());
  EXPECT_EQ(c->get_dim(), (std::vector<std::int64_t>{2, 4, 3}));
  EXPECT_EQ(a->get_stride(), (std::vector<std::int64_t>{32, 8, 1}));
  EXPECT_EQ(a->get_data_type(), DataType::FLOAT);
  EXPECT_EQ(b->get_uid(), 7);
  EXPECT_EQ(a->get_uid(), 8);  // assigned after the largest explicit uid
  EXPECT_EQ(c->get_uid(), 9);
}

TEST(GraphValidate, MatmulShapeErrorsNameOperationPortAndTensor) {
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "mm", {{"A", t("A", 1, {4, 8})}, {"B", t("B", 2, {7, 2})}},
                            {{"C", t("C", 3, {4, 2})}})),
            "matmul 'mm': B tensor 'B' (uid 2): dim 0 is 7 but A has K = 8");
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "mm", {{"A", t("A", 1, {4, 8})}, {"B", t("B", 2, {8, 2})}},
                            {{"C", t("C", 3, {4, 3})}})),
            "matmul 'mm': C tensor 'C' (uid 3): expected dims [4, 2], got [4, 3]");
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "mm", {{"A", t("A", 1, {4, 8})}}, {{"C", t("C", 3, {4, 2})}})),
            "matmul 'mm': missing input B");
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "", {{"A", t("A", 1, {8})}, {"B", t("B", 2, {8, 2})}},
                            {{"C", t("C", 3, {4, 2})}})),
            "matmul #0: A tensor 'A' (uid 1): expected rank at least 2, got dims [8]");
}

TEST(GraphValidate, TypesAreChecked) {
  auto a = t("A", 1, {4, 8});
  a->set_data_type(DataType::INT32);
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "mm", {{"A", a}, {"B", t("B", 2, {8, 2})}}, {{"C", t("C", 3, {4, 2})}})),
            "matmul 'mm': A tensor 'A' (uid 1): expected a floating-point type, got int32");
  auto b = t("B", 2, {8, 2});
  b->set_data_type(DataType::DOUBLE);
  EXPECT_EQ(validate_one(op(OperationKind::MATMUL, "mm", {{"A", t("A", 1, {4, 8})}, {"B", b}}, {{"C", t("C", 3, {4, 2})}})),
            "matmul 'mm': B tensor 'B' (uid 2): data type double differs from A (float)");
}

TEST(GraphValidate, ConvolutionComputesOutputDims) {
  const std::map<std::string, std::vector<std::int64_t>> lists{{"padding", {1, 1}}, {"stride", {2, 2}}};
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {2, 3, 8, 8})}, {"W", t("W", 2, {4, 3, 3, 3})}},
                            {{"Y", t("Y", 3, {2, 4, 4, 4})}}, {}, lists)),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {2, 3, 8, 8})}, {"W", t("W", 2, {4, 3, 3, 3})}},
                            {{"Y", t("Y", 3, {2, 4, 8, 8})}}, {}, lists)),
            "conv_fprop 'conv': Y tensor 'Y' (uid 3): expected dims [2, 4, 4, 4], got [2, 4, 8, 8]");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_DGRAD, "dg", {{"DY", t("DY", 1, {2, 4, 6, 6})}, {"W", t("W", 2, {4, 3, 3, 3})}},
                            {{"DX", t("DX", 3, {2, 3, 8, 8})}})),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_WGRAD, "wg", {{"X", t("X", 1, {2, 3, 8, 8})}, {"DY", t("DY", 2, {2, 4, 6, 6})}},
                            {{"DW", t("DW", 3, {4, 2, 3, 3})}})),
            "conv_wgrad 'wg': DW tensor 'DW' (uid 3): has 2 input channels but X has 3");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {2, 3, 8, 8})}, {"W", t("W", 2, {4, 3, 3, 3})}},
                            {{"Y", t("Y", 3, {2, 4, 6, 6})}}, {}, {{"stride", {1}}})),
            "conv_fprop 'conv': attribute 'stride' has 1 entries, expected 2 (one per spatial dim)");
}

TEST(GraphValidate, GroupedConvolutionsTakeTheChannelsOfOneGroupInTheFilter) {
  const std::map<std::string, Value> four{{"groups", std::int64_t{4}}};
  auto fprop = [](std::vector<std::int64_t> w, std::map<std::string, Value> attributes) {
    return validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {2, 8, 6, 6})}, {"W", t("W", 2, w)}},
                           {{"Y", t("Y", 3, {2, w[0], 6, 6})}}, std::move(attributes), {{"padding", {1, 1}}}));
  };
  EXPECT_EQ(fprop({12, 2, 3, 3}, four), "OK");
  EXPECT_EQ(fprop({8, 1, 3, 3}, {{"groups", std::int64_t{8}}}), "OK");  // depthwise
  EXPECT_EQ(fprop({12, 8, 3, 3}, four),
            "conv_fprop 'conv': W tensor 'W' (uid 2): has 8 input channels per group but X has 8 in 4 groups (2 each)");
  EXPECT_EQ(fprop({10, 2, 3, 3}, four),
            "conv_fprop 'conv': attribute 'groups' is 4: it must divide both X's 8 channels and W's 10 filters");
  EXPECT_EQ(fprop({12, 2, 3, 3}, {{"groups", std::int64_t{3}}}),
            "conv_fprop 'conv': attribute 'groups' is 3: it must divide both X's 8 channels and W's 12 filters");
  EXPECT_EQ(fprop({12, 2, 3, 3}, {{"groups", std::int64_t{0}}}),
            "conv_fprop 'conv': attribute 'groups' is 0; it must be at least 1");
  EXPECT_EQ(fprop({12, 2, 3, 3}, {{"groups", std::string("4")}}).rfind("conv_fprop 'conv': attribute 'groups'", 0), 0u);
  EXPECT_EQ(validate_one(op(OperationKind::CONV_WGRAD, "wg", {{"X", t("X", 1, {2, 8, 8, 8})}, {"DY", t("DY", 2, {2, 4, 6, 6})}},
                            {{"DW", t("DW", 3, {4, 4, 3, 3})}}, {{"groups", std::int64_t{2}}})),
            "OK");
}

TEST(GraphValidate, PaddingAndDilationThatOverflowOutputDimsAreRejected) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {1, 1, 8})}, {"W", t("W", 2, {1, 1, 3})}},
                            {{"Y", t("Y", 3, {1, 1, 6})}}, {}, {{"padding", {kMax / 2 + 1}}})),
            "conv_fprop 'conv': spatial dim 0: padding 4611686018427387904 and dilation 1 overflow 64-bit sizes");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {1, 1, 8})}, {"W", t("W", 2, {1, 1, 3})}},
                            {{"Y", t("Y", 3, {1, 1, 6})}}, {}, {{"dilation", {kMax}}})),
            "conv_fprop 'conv': spatial dim 0: padding 0 and dilation 9223372036854775807 overflow 64-bit sizes");
  EXPECT_EQ(validate_one(op(OperationKind::CONV_FPROP, "conv", {{"X", t("X", 1, {1, 1, 8})}, {"W", t("W", 2, {1, 1, 3})}},
                            {{"Y", t("Y", 3, {1, 1, 6})}}, {}, {{"dilation", {kMax / 2}}})),
            "conv_fprop 'conv': W tensor 'W' (uid 2): spatial dim 0 of the filter (3) is larger than the padded input (8)");
  EXPECT_EQ(validate_one(op(OperationKind::RESAMPLE_FWD, "pool", {{"X", t("X", 1, {1, 1, 8})}}, {{"Y", t("Y", 2, {1, 1, 4})}},
                            {{"mode", "maxpool"}}, {{"window", {2}}, {"padding", {kMax}}})),
            "resample_fwd 'pool': spatial dim 0: padding 9223372036854775807 overflows 64-bit sizes");
}

TEST(GraphValidate, PointwiseArityAndBroadcast) {
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "add", {{"IN_0", t("X", 1, {4, 8})}, {"IN_1", t("Bias", 2, {1, 8})}},
                            {{"OUT_0", t("Y", 3, {4, 8})}}, {{"mode", "add"}})),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "add", {{"IN_0", t("X", 1, {4, 8})}}, {{"OUT_0", t("Y", 3, {4, 8})}},
                            {{"mode", "add"}})),
            "pointwise 'add': missing input IN_1");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "relu", {{"IN_0", t("X", 1, {4, 8})}, {"IN_1", t("Z", 2, {4, 8})}},
                            {{"OUT_0", t("Y", 3, {4, 8})}}, {{"mode", "relu"}})),
            "pointwise 'relu': mode 'relu' takes one input but IN_1 is set");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "p", {{"IN_0", t("X", 1, {4, 8})}}, {{"OUT_0", t("Y", 3, {4, 8})}},
                            {{"mode", "cube"}})),
            "pointwise 'p': unknown pointwise mode 'cube'");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "p", {{"IN_0", t("X", 1, {4, 2})}}, {{"OUT_0", t("Y", 3, {4, 8})}},
                            {{"mode", "exp"}})),
            "pointwise 'p': IN_0 tensor 'X' (uid 1): dim 1 is 2, which does not broadcast to OUT_0's 8");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "p", {{"IN_0", t("X", 1, {4, 8})}}, {{"OUT_0", t("Y", 3, {4, 8})}})),
            "pointwise 'p': missing attribute 'mode'");
  EXPECT_EQ(validate_one(op(OperationKind::POINTWISE, "p", {{"IN_0", t("X", 1, {4, 8})}}, {{"OUT_0", t("Y", 3, {4, 8})}},
                            {{"mode", 3}})),
            "pointwise 'p': attribute 'mode' must be a string, got 3");
}

TEST(GraphValidate, ReductionNormsSdpaResampleAndBatchnorm) {
  EXPECT_EQ(validate_one(op(OperationKind::REDUCTION, "r", {{"X", t("X", 1, {4, 8})}}, {{"Y", t("Y", 2, {4, 2})}},
                            {{"mode", "sum"}})),
            "reduction 'r': Y tensor 'Y' (uid 2): dim 1 is 2; a reduction keeps X's 8 or reduces it to 1");
  EXPECT_EQ(validate_one(op(OperationKind::LAYERNORM, "ln",
                            {{"X", t("X", 1, {4, 8})}, {"SCALE", t("S", 2, {1, 8})}, {"BIAS", t("B", 3, {1, 8})}},
                            {{"Y", t("Y", 4, {4, 8})}, {"MEAN", t("M", 5, {4, 1})}}, {{"epsilon", 1e-5}})),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::RMSNORM, "rms", {{"X", t("X", 1, {4, 8})}, {"SCALE", t("S", 2, {1, 8})}},
                            {{"Y", t("Y", 3, {4, 8})}}, {{"epsilon", 0.0}})),
            "rmsnorm 'rms': attribute 'epsilon' must be positive, got 0");
  EXPECT_EQ(validate_one(op(OperationKind::RMSNORM_BACKWARD, "rb",
                            {{"DY", t("DY", 1, {4, 8})}, {"X", t("X", 2, {4, 8})}, {"SCALE", t("S", 3, {1, 8})},
                             {"INV_RMS", t("R", 4, {4, 1})}},
                            {{"DX", t("DX", 5, {4, 8})}, {"DSCALE", t("DS", 6, {8})}})),
            "rmsnorm_backward 'rb': DSCALE tensor 'DS' (uid 6): expected dims [1, 8], got [8]");
  EXPECT_EQ(validate_one(op(OperationKind::SDPA_FWD, "attn",
                            {{"Q", t("Q", 1, {2, 4, 16, 8})}, {"K", t("K", 2, {2, 4, 32, 8})}, {"V", t("V", 3, {2, 4, 32, 6})}},
                            {{"O", t("O", 4, {2, 4, 16, 6})}, {"STATS", t("S", 5, {2, 4, 16, 1})}},
                            {{"scale", 0.125}, {"causal", true}})),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::SDPA_FWD, "attn",
                            {{"Q", t("Q", 1, {2, 4, 16, 8})}, {"K", t("K", 2, {2, 4, 32, 7})}, {"V", t("V", 3, {2, 4, 32, 6})}},
                            {{"O", t("O", 4, {2, 4, 16, 6})}})),
            "sdpa_fwd 'attn': K tensor 'K' (uid 2): dims [2, 4, 32, 7] do not match Q [2, 4, 16, 8] in batch, heads and "
            "head size");
  EXPECT_EQ(validate_one(op(OperationKind::RESAMPLE_FWD, "pool", {{"X", t("X", 1, {1, 3, 8, 8})}}, {{"Y", t("Y", 2, {1, 3, 4, 4})}},
                            {{"mode", "maxpool"}}, {{"window", {2, 2}}, {"stride", {2, 2}}})),
            "OK");
  EXPECT_EQ(validate_one(op(OperationKind::RESAMPLE_FWD, "pool", {{"X", t("X", 1, {1, 3, 8, 8})}}, {{"Y", t("Y", 2, {1, 3, 4, 4})}},
                            {{"mode", "maxpool"}})),
            "resample_fwd 'pool': missing attribute 'window'");
  EXPECT_EQ(validate_one(op(OperationKind::BATCHNORM_INFERENCE, "bn",
                            {{"X", t("X", 1, {2, 3, 4, 4})}, {"MEAN", t("M", 2, {1, 3, 1, 1})}, {"INV_VARIANCE", t("V", 3, {1, 3, 1, 1})},
                             {"SCALE", t("S", 4, {1, 3, 1, 1})}, {"BIAS", t("B", 5, {1, 4, 1, 1})}},
                            {{"Y", t("Y", 6, {2, 3, 4, 4})}})),
            "batchnorm_inference 'bn': BIAS tensor 'B' (uid 5): expected dims [1, 3, 1, 1], got [1, 4, 1, 1]");
  EXPECT_EQ(validate_one(op(OperationKind::BATCHNORM_TRAINING, "bn",
                            {{"X", t("X", 1, {2, 3, 4, 4})}, {"SCALE", t("S", 4, {1, 3, 1, 1})}, {"BIAS", t("B", 5, {1, 3, 1, 1})}},
                            {{"Y", t("Y", 6, {2, 3, 4, 4})}, {"MEAN", t("M", 2, {1, 3, 1, 1})}, {"INV_VARIANCE", t("V", 3, {1, 3, 1, 1})}},
                            {{"epsilon", 1e-5}, {"momentum", 0.1}, {"bogus", 1}})),
            "batchnorm_training 'bn': unknown attribute 'bogus'");
}

TEST(GraphValidate, SoftmaxTakesAnAxisInsideXsRankAndGivesYXsDims) {
  auto softmax = [](std::vector<std::int64_t> y, std::map<std::string, Value> attributes) {
    return op(OperationKind::SOFTMAX, "sm", {{"X", t("X", 1, {12, 128, 128})}}, {{"Y", t("Y", 2, std::move(y))}},
              std::move(attributes));
  };
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {})), "OK");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"axis", 0}})), "OK");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"axis", -3}})), "OK");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"axis", 3}})),
            "softmax 'sm': attribute 'axis' is 3; X has rank 3, so it must lie in [-3, 2]");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"axis", -4}})),
            "softmax 'sm': attribute 'axis' is -4; X has rank 3, so it must lie in [-3, 2]");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"axis", 1.5}})), "softmax 'sm': attribute 'axis' must be an integer, got 1.5");
  EXPECT_EQ(validate_one(softmax({12, 128, 64}, {})), "softmax 'sm': Y tensor 'Y' (uid 2): expected dims [12, 128, 128], got [12, 128, 64]");
  EXPECT_EQ(validate_one(softmax({12, 128, 128}, {{"epsilon", 1e-5}})), "softmax 'sm': unknown attribute 'epsilon'");

  Operation last = softmax({12, 128, 128}, {});
  EXPECT_EQ(softmax_axis(last), 2);
  last.attributes["axis"] = -2;
  EXPECT_EQ(softmax_axis(last), 1);
}

TEST(GraphValidate, WiringErrors) {
  {
    Graph graph;
    EXPECT_EQ(graph.validate().message(), "validate: the graph has no operations");
  }
  {
    Graph graph;
    auto x = t("X", 1, {4});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", x}}, {{"OUT_0", t("Y", 1, {4})}}, {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(), "validate: tensors 'X' (uid 1) and 'Y' (uid 1) have the same uid");
  }
  {
    Graph graph;
    auto x = t("X", 1, {4});
    auto y = t("Y", 2, {4});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", x}}, {{"OUT_0", y}}, {{"mode", "neg"}}));
    graph.add_operation(op(OperationKind::POINTWISE, "p2", {{"IN_0", x}}, {{"OUT_0", y}}, {{"mode", "abs"}}));
    EXPECT_EQ(graph.validate().message(), "validate: tensor 'Y' (uid 2) is produced by both pointwise 'p1' and pointwise 'p2'");
  }
  {
    Graph graph;
    auto x = t("X", 1, {4});
    auto hidden = v("H", {4});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", x}}, {{"OUT_0", hidden}}, {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(),
              "validate: virtual tensor 'H' (uid 2) is produced by pointwise 'p1' but never consumed; mark it as an output");
  }
  {
    Graph graph;
    auto hidden = v("H", {4});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", hidden}}, {{"OUT_0", t("Y", 1, {4})}}, {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(), "validate: virtual tensor 'H' (uid 2) is not produced by any operation");
  }
  {
    Graph graph;
    auto x = t("X", 1, {4});
    x->set_stride({1, 1});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", x}}, {{"OUT_0", t("Y", 2, {4})}}, {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(), "validate: tensor 'X' (uid 1) has 1 dims but 2 strides");
  }
  {
    Graph graph;
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", t("X", 1, {4, 0})}}, {{"OUT_0", t("Y", 2, {4, 0})}},
                           {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(), "validate: tensor 'X' (uid 1): dim 1 is 0; dims must be positive");
  }
  {
    Graph graph;
    auto a = v("A", {4});
    auto b = v("B", {4});
    graph.add_operation(op(OperationKind::POINTWISE, "p1", {{"IN_0", a}}, {{"OUT_0", b}}, {{"mode", "neg"}}));
    graph.add_operation(op(OperationKind::POINTWISE, "p2", {{"IN_0", b}}, {{"OUT_0", a}}, {{"mode", "neg"}}));
    EXPECT_EQ(graph.validate().message(), "validate: the operations form a cycle");
  }
}

// validate() of one pointwise X -> Y whose tensors have these dims (and X these strides).
std::string validate_sizes(std::vector<std::int64_t> dims, std::vector<std::int64_t> strides = {},
                           DataType type = DataType::FLOAT) {
  auto x = t("X", 1, dims);
  x->set_stride(std::move(strides)).set_data_type(type);
  auto y = t("Y", 2, std::move(dims));
  y->set_data_type(type);
  return validate_one(op(OperationKind::POINTWISE, "p", {{"IN_0", x}}, {{"OUT_0", y}}, {{"mode", "neg"}}));
}

TEST(GraphValidate, DimsStridesAndTypesWhoseSizesOverflowSixtyFourBitsAreRejectedNamingTheTensor) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t k2to31 = std::int64_t{1} << 31, k2to32 = std::int64_t{1} << 32, k2to62 = std::int64_t{1} << 62;
  // Element counts past 2^63 - 1.
  EXPECT_EQ(validate_sizes({k2to32, k2to32}),
            "validate: tensor 'X' (uid 1): dims [4294967296, 4294967296] hold more than 9223372036854775807 elements");
  EXPECT_EQ(validate_sizes({kMax, kMax}), "validate: tensor 'X' (uid 1): dims [9223372036854775807, "
                                          "9223372036854775807] hold more than 9223372036854775807 elements");
  EXPECT_EQ(validate_sizes({k2to62, 2}),
            "validate: tensor 'X' (uid 1): dims [4611686018427387904, 2] hold more than 9223372036854775807 elements");
  // Elements that fit, bytes that do not.
  EXPECT_EQ(validate_sizes({k2to62, 1}),
            "validate: tensor 'X' (uid 1): dims [4611686018427387904, 1] with strides [1, 1] span 4611686018427387904 "
            "elements of float, more than 9223372036854775807 bytes");
  EXPECT_EQ(validate_sizes({kMax}),
            "validate: tensor 'X' (uid 1): dims [9223372036854775807] with strides [1] span 9223372036854775807 "
            "elements of float, more than 9223372036854775807 bytes");
  EXPECT_EQ(validate_sizes({k2to31, k2to31}),
            "validate: tensor 'X' (uid 1): dims [2147483648, 2147483648] with strides [2147483648, 1] span "
            "4611686018427387904 elements of float, more than 9223372036854775807 bytes");
  EXPECT_EQ(validate_sizes({k2to31, k2to31}, {}, DataType::UINT8), "OK");  // 2^62 bytes: valid; budgets limit memory
  // Strides that reach past 2^63 - 1 elements, or bytes, from few elements.
  EXPECT_EQ(validate_sizes({2, 2}, {k2to62, k2to62}),
            "validate: tensor 'X' (uid 1): dims [2, 2] with strides [4611686018427387904, 4611686018427387904] span "
            "more than 9223372036854775807 elements");
  EXPECT_EQ(validate_sizes({2, 1}, {kMax, 1}),
            "validate: tensor 'X' (uid 1): dims [2, 1] with strides [9223372036854775807, 1] span more than "
            "9223372036854775807 elements");
  EXPECT_EQ(validate_sizes({2}, {std::int64_t{1} << 61}),
            "validate: tensor 'X' (uid 1): dims [2] with strides [2305843009213693952] span 2305843009213693953 "
            "elements of float, more than 9223372036854775807 bytes");
  EXPECT_EQ(validate_sizes({2}, {std::int64_t{1} << 61}, DataType::INT8), "OK");
}

TEST(GraphValidate, MissingNegativeAndZeroDimsAndStridesAreRejected) {
  EXPECT_EQ(validate_sizes({}), "validate: tensor 'X' (uid 1) has no dims");
  EXPECT_EQ(validate_sizes({4, -4}), "validate: tensor 'X' (uid 1): dim 1 is -4; dims must be positive");
  EXPECT_EQ(validate_sizes({std::numeric_limits<std::int64_t>::min()}),
            "validate: tensor 'X' (uid 1): dim 0 is -9223372036854775808; dims must be positive");
  EXPECT_EQ(validate_sizes({4, 4}, {4, 0}), "validate: tensor 'X' (uid 1): stride 1 is 0; strides must be positive");
  EXPECT_EQ(validate_sizes({4, 4}, {-4, 1}), "validate: tensor 'X' (uid 1): stride 0 is -4; strides must be positive");
}

TEST(GraphValidate, OperationsAreOrderedTopologically) {
  Graph graph;
  auto x = t("X", 1, {4});
  auto h = v("H", {4});
  auto y = t("Y", 2, {4});
  graph.add_operation(op(OperationKind::POINTWISE, "second", {{"IN_0", h}}, {{"OUT_0", y}}, {{"mode", "exp"}}));
  graph.add_operation(op(OperationKind::POINTWISE, "first", {{"IN_0", x}}, {{"OUT_0", h}}, {{"mode", "neg"}}));
  ASSERT_TRUE(graph.validate().is_good());
  EXPECT_EQ(graph.operations()[0].name, "first");
  EXPECT_EQ(graph.operations()[1].name, "second");
  EXPECT_EQ(h->get_uid(), 3);
}

TEST(GraphValidate, BuildNeedsAHandle) {
  Graph graph;
  EXPECT_EQ(graph.build_operation_graph(nullptr).message(), "build_operation_graph: invalid handle (null)");
  EXPECT_FALSE(graph.is_built());
}

TEST(OperationNames, RoundTrip) {
  for (OperationKind kind : all_operation_kinds()) EXPECT_EQ(parse_operation_kind(to_string(kind)), kind);
  EXPECT_EQ(all_operation_kinds().size(), 16u);
  EXPECT_EQ(parse_pointwise_mode("ADD"), PointwiseMode::ADD);
  EXPECT_EQ(arity(PointwiseMode::ADD), 2);
  EXPECT_EQ(arity(PointwiseMode::RELU), 1);
  EXPECT_EQ(parse_reduction_mode("mean"), ReductionMode::MEAN);
  EXPECT_EQ(parse_resample_mode("avgpool_include_padding"), ResampleMode::AVGPOOL_INCLUDE_PADDING);
  EXPECT_EQ(parse_operation_kind("softmax"), OperationKind::SOFTMAX);
  EXPECT_FALSE(parse_operation_kind("log_softmax").has_value());
}

TEST(TensorAttributes, PackedStridesAndSpan) {
  EXPECT_EQ(TensorAttributes::packed_strides({2, 3, 4}), (std::vector<std::int64_t>{12, 4, 1}));
  constexpr std::int64_t k2to32 = std::int64_t{1} << 32;
  EXPECT_EQ(TensorAttributes::packed_strides({k2to32, k2to32, k2to32}),
            (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max(), k2to32, 1}));
  EXPECT_EQ(TensorAttributes().set_dim({k2to32, k2to32, 0}).element_count().value(), 0);
  TensorAttributes tensor;
  tensor.set_dim({2, 3}).set_stride({8, 1});
  EXPECT_EQ(tensor.element_count().value(), 6);
  EXPECT_EQ(tensor.span_elements().value(), 11);
  EXPECT_EQ(tensor.span_bytes().error().message(),
            "tensor (no uid): the data type is not set, so its size in bytes is unknown");
  tensor.set_data_type(DataType::DOUBLE);
  EXPECT_EQ(tensor.span_bytes().value(), 88);
  EXPECT_EQ(tensor.describe(), "(no uid)");
  tensor.set_name("T").set_uid(4);
  EXPECT_EQ(tensor.describe(), "'T' (uid 4)");
  EXPECT_FALSE(tensor.get_is_virtual());
  tensor.set_output(false);
  EXPECT_TRUE(tensor.get_is_virtual());
}

}  // namespace
}  // namespace tunekit::graph
