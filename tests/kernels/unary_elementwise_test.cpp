#include "tunekit/cpu/unary_elementwise.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "elementwise_path_checks.hpp"
#include "tunekit/cpu/register.hpp"

namespace tunekit::cpu {
namespace {

using tuning::Tensor;

// Double-precision reference of the operation.
double reference(UnaryOp op, double x) { return op == UnaryOp::NOT ? (x == 0.0 ? 1.0 : 0.0) : std::fabs(x); }

struct KernelCase {
  UnaryOp op;
  DataType type;
};

class UnaryKernelTest : public ::testing::TestWithParam<KernelCase> {};

TEST_P(UnaryKernelTest, EveryPathMatchesTheDoubleReferenceAndWritesEveryElement) {
  const KernelCase c = GetParam();
  UnaryElementwiseTuning config;
  config.simd_min_elements = 16;
  config.parallel_minimum_elements = 1000;
  config.maximum_threads = 2;
  const UnaryElementwiseKernel kernel(c.op, config);
  for (std::int64_t n : {0, 1, 15, 17, 999, 4099}) {
    auto input = tuning::RandnTensor(c.type, {n}, 11 + static_cast<std::uint64_t>(n));
    ASSERT_TRUE(input.ok());
    for (ExecutionPath path : {ExecutionPath::AUTO, ExecutionPath::SERIAL_SCALAR, ExecutionPath::SERIAL_SIMD,
                               ExecutionPath::PARALLEL_SIMD}) {
      auto output = tuning::EmptyTensor(c.type, {n});
      tuning::poison(*output);
      ASSERT_TRUE(kernel.run(*input, *output, path).is_good());
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(output->element(i), reference(c.op, input->element(i)))
            << "n=" << n << " i=" << i << " path=" << static_cast<int>(path);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, UnaryKernelTest,
                         ::testing::Values(KernelCase{UnaryOp::ABS, DataType::FLOAT},
                                           KernelCase{UnaryOp::ABS, DataType::DOUBLE},
                                           KernelCase{UnaryOp::ABS, DataType::INT32},
                                           KernelCase{UnaryOp::NOT, DataType::BOOL}));

TEST(UnaryKernel, PathFollowsTheConfiguredThresholds) {
  expect_path_follows_the_thresholds<UnaryElementwiseKernel, UnaryElementwiseTuning>(UnaryOp::ABS);
}

TEST(UnaryKernel, TeamIsTheMaximumCappedAtOpenMpsThreadLimit) {
  expect_team_capped_at_the_openmp_limit<UnaryElementwiseKernel, UnaryElementwiseTuning>(UnaryOp::ABS);
}

TEST(UnaryKernel, RejectsUnsupportedTypesAndSizeMismatch) {
  const UnaryElementwiseKernel abs(UnaryOp::ABS, {});
  auto in8 = tuning::RandnTensor(DataType::INT8, {4}, 1);
  auto out8 = tuning::EmptyTensor(DataType::INT8, {4});
  EXPECT_EQ(abs.run(*in8, *out8).code(), ErrorCode::INVALID_VALUE);
  auto in = tuning::RandnTensor(DataType::FLOAT, {4}, 1);
  auto out = tuning::EmptyTensor(DataType::FLOAT, {5});
  EXPECT_NE(abs.run(*in, *out).message().find("input has 4 elements, output 5"), std::string::npos);
  EXPECT_FALSE(supports(UnaryOp::NOT, DataType::FLOAT));
}

TEST(UnaryKernel, IntegerAbsOfTheMinimumWrapsInsteadOfOverflowing) {
  auto in = tuning::EmptyTensor(DataType::INT32, {1});
  in->as<std::int32_t>()[0] = INT32_MIN;
  auto out = tuning::EmptyTensor(DataType::INT32, {1});
  ASSERT_TRUE(UnaryElementwiseKernel(UnaryOp::ABS, {}).run(*in, *out, ExecutionPath::SERIAL_SCALAR).is_good());
  EXPECT_EQ(out->as<std::int32_t>()[0], INT32_MIN);
}

TEST(TunekitCpuRegistration, RegistersASchemaAndFunctionPerSupportedType) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  // One key per operation and type it supports (tuning.toml declares the same).
  std::size_t supported = 0;
  for (UnaryOp op : kAllUnaryOps) {
    for (DataType type : core::all_data_types()) {
      if (supports(op, type)) {
        ++supported;
        EXPECT_NE(registry.snapshot()->schema(unary_key(op, type)), nullptr) << unary_key(op, type).to_string();
      }
    }
  }
  EXPECT_EQ(supported, 43u);  // Abs, Neg, Relu: 6 types; Sqrt and 5 transcendentals: 4; Not: 1
  // With the Gemm keys, every key the spec declares.
  EXPECT_EQ(registry.snapshot()->keys().size(), tunekit_cpu_tuning_keys().size());
  EXPECT_EQ(functions.entries().size(), tunekit_cpu_tuning_keys().size());
  EXPECT_NE(registry.snapshot()->schema(unary_key(UnaryOp::ABS, DataType::DOUBLE)), nullptr);
  EXPECT_EQ(registry.snapshot()->schema(unary_key(UnaryOp::NOT, DataType::FLOAT)), nullptr);
}

}  // namespace
}  // namespace tunekit::cpu
