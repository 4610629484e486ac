// Every unary operation on every type it supports, on every instruction-set
// path this processor runs (forced) and every execution path, against a
// double-precision reference within the documented error
// (tunekit/cpu/unary_accuracy.hpp), with poisoned outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "tunekit/core/half_precision.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/unary_accuracy.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "ulp_error.hpp"

namespace tunekit::cpu {
namespace {

using tuning::Tensor;

using ulp::reference;
using ulp::ulp_error;

// The input of an operation: normal samples scaled into its interesting
// range, a few negatives for Log and Sqrt (NaN results), and special values.
Tensor input_for(UnaryOp op, DataType type, std::int64_t n, std::uint64_t seed) {
  Tensor t = tuning::RandnTensor(type, {n}, seed).value();
  if (!core::is_floating_point(type)) return t;
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    double x = t.element(i);
    if (op == UnaryOp::EXP || op == UnaryOp::SIGMOID) x *= 12;  // crosses FLOAT16's overflow at 11.1
    if (op == UnaryOp::TANH || op == UnaryOp::ERF) x *= 3;
    if ((op == UnaryOp::LOG || op == UnaryOp::SQRT) && i % 7 != 3) x = std::fabs(x) * 100;
    values[static_cast<std::size_t>(i)] = x;
  }
  const double specials[] = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, std::nan(""), 1e-40, -1e-40, 1.0, -1.0};
  for (std::size_t k = 0; k < std::size(specials) && static_cast<std::int64_t>(k * 13) < n; ++k) {
    values[k * 13] = specials[k];
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = values[static_cast<std::size_t>(i)];
    switch (type) {
      case DataType::FLOAT: t.as<float>()[i] = static_cast<float>(x); break;
      case DataType::DOUBLE: t.as<double>()[i] = x; break;
      case DataType::FLOAT16: t.as<std::uint16_t>()[i] = core::float_to_float16(static_cast<float>(x)); break;
      case DataType::BFLOAT16: t.as<std::uint16_t>()[i] = core::float_to_bfloat16(static_cast<float>(x)); break;
      default: break;
    }
  }
  return t;
}

std::vector<CpuIsa> runnable_isas() {
  std::vector<CpuIsa> isas;
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (can_run(isa, here)) isas.push_back(isa);
  }
  return isas;
}

struct OpCase {
  UnaryOp op;
  DataType type;
};
std::string case_name(const ::testing::TestParamInfo<OpCase>& info) {
  return std::string(to_string(info.param.op)) + "_" + std::string(core::to_string(info.param.type));
}
std::vector<OpCase> all_supported() {
  std::vector<OpCase> cases;
  for (UnaryOp op : kAllUnaryOps) {
    for (DataType type : core::all_data_types()) {
      if (supports(op, type)) cases.push_back({op, type});
    }
  }
  return cases;
}

class UnaryOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(UnaryOpTest, EveryIsaAndPathIsWithinTheDocumentedErrorOfTheDoubleReference) {
  const OpCase c = GetParam();
  UnaryElementwiseTuning config;
  config.simd_min_elements = 16;
  config.parallel_minimum_elements = 1000;
  config.maximum_threads = 2;
  const UnaryElementwiseKernel kernel(c.op, config);
  const double bound = core::is_floating_point(c.type) ? max_ulp(c.op, c.type) : 0.0;
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (std::int64_t n : {0, 1, 15, 17, 997, 4099, 100003}) {
      const Tensor input = input_for(c.op, c.type, n, 101 + static_cast<std::uint64_t>(n));
      for (ExecutionPath path : {ExecutionPath::AUTO, ExecutionPath::SERIAL_SCALAR, ExecutionPath::SERIAL_SIMD,
                                 ExecutionPath::PARALLEL_SIMD}) {
        Tensor output = tuning::EmptyTensor(c.type, {n}).value();
        tuning::poison(output);
        ASSERT_TRUE(kernel.run(input, output, path).is_good());
        for (std::int64_t i = 0; i < n; ++i) {
          const double x = input.element(i);
          const long double expected = reference(c.op, static_cast<long double>(x));
          const double got = output.element(i);
          ASSERT_LE(ulp_error(c.type, expected, got), bound)
              << to_string(isa) << " path " << static_cast<int>(path) << " n=" << n << " i=" << i << " x=" << x
              << " expected " << static_cast<double>(expected) << " got " << got;
        }
      }
    }
  }
}

// The parallel path runs the serial SIMD code on blocks, so on one
// instruction set both agree bit for bit.
TEST_P(UnaryOpTest, ParallelEqualsSerialSimdBitForBitOnEveryIsa) {
  const OpCase c = GetParam();
  const UnaryElementwiseKernel kernel(c.op, {});
  const std::int64_t n = 30011;
  const Tensor input = input_for(c.op, c.type, n, 7);
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    Tensor serial = tuning::EmptyTensor(c.type, {n}).value();
    Tensor parallel = tuning::EmptyTensor(c.type, {n}).value();
    tuning::poison(serial);
    tuning::poison(parallel);
    ASSERT_TRUE(kernel.run(input, serial, ExecutionPath::SERIAL_SIMD).is_good());
    ASSERT_TRUE(kernel.run(input, parallel, ExecutionPath::PARALLEL_SIMD, 3).is_good());
    EXPECT_EQ(std::memcmp(serial.data(), parallel.data(), serial.bytes()), 0) << to_string(isa);
  }
}

INSTANTIATE_TEST_SUITE_P(Supported, UnaryOpTest, ::testing::ValuesIn(all_supported()), case_name);

TEST(UnaryOps, IntegerResultsAreExactAndWrapAtTheMinimum) {
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (ExecutionPath path : {ExecutionPath::SERIAL_SCALAR, ExecutionPath::SERIAL_SIMD}) {
      Tensor in = tuning::EmptyTensor(DataType::INT64, {5}).value();
      const std::int64_t values[] = {INT64_MIN, -7, 0, 9, INT64_MAX};
      std::memcpy(in.data(), values, sizeof values);
      Tensor out = tuning::EmptyTensor(DataType::INT64, {5}).value();
      ASSERT_TRUE(UnaryElementwiseKernel(UnaryOp::NEG, {}).run(in, out, path).is_good());
      const std::int64_t negated[] = {INT64_MIN, 7, 0, -9, -INT64_MAX};
      EXPECT_EQ(std::memcmp(out.data(), negated, sizeof negated), 0) << to_string(isa);
      ASSERT_TRUE(UnaryElementwiseKernel(UnaryOp::RELU, {}).run(in, out, path).is_good());
      const std::int64_t relu[] = {0, 0, 0, 9, INT64_MAX};
      EXPECT_EQ(std::memcmp(out.data(), relu, sizeof relu), 0) << to_string(isa);
      ASSERT_TRUE(UnaryElementwiseKernel(UnaryOp::ABS, {}).run(in, out, path).is_good());
      const std::int64_t abs[] = {INT64_MIN, 7, 0, 9, INT64_MAX};
      EXPECT_EQ(std::memcmp(out.data(), abs, sizeof abs), 0) << to_string(isa);
    }
  }
}

TEST(UnaryOps, SpecialValuesFollowIeeeOnEveryIsa) {
  const float inf = HUGE_VALF;
  struct Expect {
    UnaryOp op;
    float x;
    float y;
  };
  const Expect cases[] = {{UnaryOp::EXP, -inf, 0.0f},         {UnaryOp::EXP, inf, inf},
                          {UnaryOp::EXP, 0.0f, 1.0f},         {UnaryOp::EXP, 88.8f, inf},
                          {UnaryOp::EXP, -104.0f, 0.0f},      {UnaryOp::LOG, 0.0f, -inf},
                          {UnaryOp::LOG, -0.0f, -inf},        {UnaryOp::LOG, inf, inf},
                          {UnaryOp::LOG, 1.0f, 0.0f},         {UnaryOp::TANH, inf, 1.0f},
                          {UnaryOp::TANH, -inf, -1.0f},       {UnaryOp::TANH, -0.0f, -0.0f},
                          {UnaryOp::SIGMOID, -inf, 0.0f},     {UnaryOp::SIGMOID, inf, 1.0f},
                          {UnaryOp::SIGMOID, 0.0f, 0.5f},     {UnaryOp::SQRT, -0.0f, -0.0f},
                          {UnaryOp::ABS, -0.0f, 0.0f},        {UnaryOp::NEG, 0.0f, -0.0f},
                          {UnaryOp::ERF, inf, 1.0f},          {UnaryOp::RELU, -inf, 0.0f}};
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (const Expect& e : cases) {
      for (ExecutionPath path : {ExecutionPath::SERIAL_SCALAR, ExecutionPath::SERIAL_SIMD}) {
        Tensor in = tuning::EmptyTensor(DataType::FLOAT, {1}).value();
        in.as<float>()[0] = e.x;
        Tensor out = tuning::EmptyTensor(DataType::FLOAT, {1}).value();
        tuning::poison(out);
        ASSERT_TRUE(UnaryElementwiseKernel(e.op, {}).run(in, out, path).is_good());
        const float y = out.as<float>()[0];
        EXPECT_TRUE(y == e.y && std::signbit(y) == std::signbit(e.y))
            << to_string(isa) << " " << to_string(e.op) << "(" << e.x << ") = " << y << ", expected " << e.y;
      }
    }
    for (UnaryOp op : {UnaryOp::EXP, UnaryOp::LOG, UnaryOp::TANH, UnaryOp::SIGMOID, UnaryOp::SQRT, UnaryOp::ERF,
                       UnaryOp::ABS, UnaryOp::NEG, UnaryOp::RELU}) {
      Tensor in = tuning::EmptyTensor(DataType::FLOAT, {2}).value();
      in.as<float>()[0] = std::nanf("");
      in.as<float>()[1] = op == UnaryOp::LOG || op == UnaryOp::SQRT ? -1.0f : std::nanf("");
      Tensor out = tuning::EmptyTensor(DataType::FLOAT, {2}).value();
      ASSERT_TRUE(UnaryElementwiseKernel(op, {}).run(in, out, ExecutionPath::SERIAL_SIMD).is_good());
      EXPECT_TRUE(std::isnan(out.as<float>()[0]) && std::isnan(out.as<float>()[1])) << to_string(op);
    }
  }
}

}  // namespace
}  // namespace tunekit::cpu
