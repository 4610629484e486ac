// The core operation of a graph and the op string, criteria and named
// tensors an override entry is keyed by.
#include "tunekit/graph/override_query.hpp"

#include <gtest/gtest.h>

namespace tunekit::graph {
namespace {

Tensor make(std::vector<std::int64_t> dims) {
  auto t = std::make_shared<TensorAttributes>();
  t->set_dim(dims).set_stride(TensorAttributes::packed_strides(dims));
  return t;
}

Operation op(OperationKind kind, std::map<std::string, Tensor> in, std::map<std::string, Tensor> out) {
  Operation o;
  o.kind = kind;
  o.inputs = std::move(in);
  o.outputs = std::move(out);
  return o;
}

TEST(OverrideQuery, PrioritiesFollowTheTableOfTheSpecification) {
  EXPECT_EQ(core_operation_priority(OperationKind::CONV_WGRAD), 70);
  EXPECT_EQ(core_operation_priority(OperationKind::SDPA_BWD), 60);
  EXPECT_EQ(core_operation_priority(OperationKind::MATMUL), 50);
  EXPECT_EQ(core_operation_priority(OperationKind::BATCHNORM_INFERENCE), 40);
  EXPECT_EQ(core_operation_priority(OperationKind::RMSNORM_BACKWARD), 30);
  EXPECT_EQ(core_operation_priority(OperationKind::SOFTMAX), 30);
  EXPECT_EQ(core_operation_priority(OperationKind::REDUCTION), 20);
  EXPECT_EQ(core_operation_priority(OperationKind::RESAMPLE_FWD), 20);
  EXPECT_EQ(core_operation_priority(OperationKind::POINTWISE), 10);
}

TEST(OverrideQuery, TheCoreOperationIsTheHighestPriorityAndTheFirstOfEquals) {
  std::vector<Operation> ops;
  ops.push_back(op(OperationKind::POINTWISE, {}, {}));
  ops.push_back(op(OperationKind::REDUCTION, {}, {}));
  ops.push_back(op(OperationKind::RESAMPLE_FWD, {}, {}));
  EXPECT_EQ(core_operation_index(ops), 1u);
  ops.push_back(op(OperationKind::MATMUL, {}, {}));
  EXPECT_EQ(core_operation_index(ops), 3u);
  EXPECT_FALSE(core_operation_index({}));
}

TEST(OverrideQuery, MatmulTensorsAreNamedByPortInFixedOrder) {
  Operation mm = op(OperationKind::MATMUL, {{"B", make({8, 2})}, {"A", make({4, 8})}}, {{"C", make({4, 2})}});
  const OverrideQuery q = make_override_query(mm);
  EXPECT_EQ(q.op, "matmul");
  EXPECT_TRUE(q.criteria.empty());
  ASSERT_EQ(q.tensors.size(), 3u);
  EXPECT_EQ(q.tensors[0].tensor_id, "A");
  EXPECT_EQ(q.tensors[0].dims, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(q.tensors[0].strides, (std::vector<std::int64_t>{8, 1}));
  EXPECT_EQ(q.tensors[1].tensor_id, "B");
  EXPECT_EQ(q.tensors[2].tensor_id, "C");
  EXPECT_FALSE(q.tensors[0].output);
  EXPECT_FALSE(q.tensors[1].output);
  EXPECT_TRUE(q.tensors[2].output);
}

TEST(OverrideQuery, CriteriaEncodeModesAndPhases) {
  Operation pw = op(OperationKind::POINTWISE, {{"IN_0", make({4})}}, {{"OUT_0", make({4})}});
  pw.attributes["mode"] = "relu";
  EXPECT_EQ(make_override_query(pw).criteria.at("pointwise_mode"), static_cast<std::int64_t>(PointwiseMode::RELU));

  Operation conv = op(OperationKind::CONV_FPROP, {{"W", make({1, 1, 1, 1})}, {"X", make({1, 1, 2, 2})}},
                      {{"Y", make({1, 1, 2, 2})}});
  const OverrideQuery cq = make_override_query(conv);
  EXPECT_EQ(cq.op, "conv_fprop");
  ASSERT_EQ(cq.tensors.size(), 3u);
  EXPECT_EQ(cq.tensors[0].tensor_id, "X");
  EXPECT_EQ(cq.tensors[1].tensor_id, "W");

  Operation ln = op(OperationKind::LAYERNORM, {{"X", make({2, 4})}, {"SCALE", make({4})}, {"BIAS", make({4})}},
                    {{"Y", make({2, 4})}});
  EXPECT_EQ(make_override_query(ln).criteria.at("norm_fwd_phase"), 0);
  ln.outputs["MEAN"] = make({2});
  EXPECT_EQ(make_override_query(ln).criteria.at("norm_fwd_phase"), 1);

  Operation sdpa = op(OperationKind::SDPA_FWD, {}, {});
  sdpa.attributes["causal"] = true;
  EXPECT_EQ(make_override_query(sdpa).criteria.at("causal_mask"), 1);

  // Softmaxes along different dims of the same tensors are different entries.
  Operation softmax = op(OperationKind::SOFTMAX, {{"X", make({12, 128, 128})}}, {{"Y", make({12, 128, 128})}});
  const OverrideQuery sq = make_override_query(softmax);
  EXPECT_EQ(sq.op, "softmax");
  EXPECT_EQ(sq.criteria.at("softmax_axis"), 2);
  ASSERT_EQ(sq.tensors.size(), 2u);
  EXPECT_EQ(sq.tensors[0].tensor_id, "X");
  EXPECT_EQ(sq.tensors[1].tensor_id, "Y");
  softmax.attributes["axis"] = -1;
  EXPECT_EQ(make_override_query(softmax).criteria.at("softmax_axis"), 2);
  softmax.attributes["axis"] = 1;
  EXPECT_EQ(make_override_query(softmax).criteria.at("softmax_axis"), 1);
}

TEST(OverrideQuery, AGraphWithoutOperationsHasNoQuery) {
  Result<OverrideQuery> q = make_override_query(OperationGraph{});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().code(), ErrorCode::NOT_SUPPORTED);
}

}  // namespace
}  // namespace tunekit::graph
