// The binary elementwise kernels of tunekit_cpu: every operation and type
// against a double-precision (integers: exact) reference on random operands
// with poisoned outputs, every broadcasting rule, invalid shapes refused,
// NaN and infinity, and every path on every instruction set this processor
// runs giving the same values.
#include "tunekit/cpu/binary_elementwise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "elementwise_path_checks.hpp"
#include "ulp_error.hpp"
#include "tunekit/core/half_precision.hpp"
#include "tunekit/cpu/isa.hpp"

namespace tunekit::cpu {
namespace {

using tuning::Shape;
using tuning::Tensor;

constexpr DataType kTypes[] = {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::BFLOAT16,
                               DataType::INT32, DataType::INT64,  DataType::BOOL};
constexpr ExecutionPath kPaths[] = {ExecutionPath::SERIAL_SCALAR, ExecutionPath::SERIAL_SIMD,
                                    ExecutionPath::PARALLEL_SIMD, ExecutionPath::AUTO};

bool is_float(DataType t) {
  return t == DataType::FLOAT || t == DataType::DOUBLE || t == DataType::FLOAT16 || t == DataType::BFLOAT16;
}

// Relative tolerance of a floating result against the double reference: the
// rounding of the result to the type (computing in float for the 16-bit
// types), a few units more for Pow.
double tolerance(BinaryOp op, DataType t) {
  const double ulps = op == BinaryOp::POW ? 4.0 : 1.0;
  switch (t) {
    case DataType::FLOAT: return ulps * 0x1p-23;
    case DataType::DOUBLE: return ulps * 0x1p-52;
    case DataType::FLOAT16: return 0x1p-10;
    case DataType::BFLOAT16: return 0x1p-7;
    default: return 0.0;
  }
}

double float_reference(BinaryOp op, double x, double y) {
  switch (op) {
    case BinaryOp::ADD: return x + y;
    case BinaryOp::SUB: return x - y;
    case BinaryOp::MUL: return x * y;
    case BinaryOp::DIV: return x / y;
    case BinaryOp::MAX: return std::isnan(x) || std::isnan(y) ? std::nan("") : (x > y ? x : y);
    case BinaryOp::MIN: return std::isnan(x) || std::isnan(y) ? std::nan("") : (x < y ? x : y);
    case BinaryOp::POW: return std::pow(x, y);
    case BinaryOp::EQUAL: return x == y;
    case BinaryOp::LESS: return x < y;
    case BinaryOp::GREATER: return x > y;
    default: return std::nan("");
  }
}

// Integers wrap (two's complement at the type's width).
std::int64_t integer_reference(BinaryOp op, std::int64_t x, std::int64_t y, DataType t) {
  const auto ux = static_cast<std::uint64_t>(x);
  const auto uy = static_cast<std::uint64_t>(y);
  std::int64_t r = 0;
  switch (op) {
    case BinaryOp::ADD: r = static_cast<std::int64_t>(ux + uy); break;
    case BinaryOp::SUB: r = static_cast<std::int64_t>(ux - uy); break;
    case BinaryOp::MUL: r = static_cast<std::int64_t>(ux * uy); break;
    case BinaryOp::MAX: r = x > y ? x : y; break;
    case BinaryOp::MIN: r = x < y ? x : y; break;
    case BinaryOp::AND: r = t == DataType::BOOL ? ((x != 0) && (y != 0)) : (x & y); break;
    case BinaryOp::OR: r = t == DataType::BOOL ? ((x != 0) || (y != 0)) : (x | y); break;
    case BinaryOp::XOR: r = t == DataType::BOOL ? ((x != 0) != (y != 0)) : (x ^ y); break;
    case BinaryOp::EQUAL: return x == y;
    case BinaryOp::LESS: return x < y;
    case BinaryOp::GREATER: return x > y;
    default: break;
  }
  return t == DataType::INT32 ? static_cast<std::int32_t>(r) : r;
}

std::int64_t integer_element(const Tensor& t, std::int64_t i) {
  switch (t.type) {
    case DataType::INT32: return t.as<std::int32_t>()[i];
    case DataType::INT64: return t.as<std::int64_t>()[i];
    default: return t.as<std::uint8_t>()[i];
  }
}

// Element i of the output: the reference of the operands at their broadcast
// positions, and whether the kernel's value matches it.
::testing::AssertionResult matches(BinaryOp op, const Tensor& a, std::int64_t ia, const Tensor& b, std::int64_t ib,
                                   const Tensor& out, std::int64_t i) {
  const DataType t = a.type;
  const bool comparison = output_type(op, t) == DataType::BOOL && t != DataType::BOOL;
  if (!is_float(t)) {
    const std::int64_t expected = integer_reference(op, integer_element(a, ia), integer_element(b, ib), t);
    const std::int64_t actual = integer_element(out, i);
    if (expected == actual) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected " << expected << " got " << actual;
  }
  double expected = float_reference(op, a.element(ia), b.element(ib));
  const double actual = out.element(i);
  // 16-bit results: the reference rounded to the type (overflow to infinity,
  // subnormals), off by at most one unit of the type from the kernel's
  // rounding of the float result.
  double subnormal = 0.0;
  if (t == DataType::FLOAT16 && !comparison) {
    expected = core::float16_to_float(core::float_to_float16(static_cast<float>(expected)));
    subnormal = 0x1p-24;
  } else if (t == DataType::BFLOAT16 && !comparison) {
    expected = core::bfloat16_to_float(core::float_to_bfloat16(static_cast<float>(expected)));
    subnormal = 0x1p-133;
  }
  if (comparison) {
    const bool written = out.as<std::uint8_t>()[i] <= 1;
    if (written && expected == actual) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected " << expected << " got byte " << int(out.as<std::uint8_t>()[i]);
  }
  if ((std::isnan(expected) && std::isnan(actual)) || expected == actual ||
      std::fabs(expected - actual) <= tolerance(op, t) * std::fabs(expected) + subnormal) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << expected << " got " << actual << " from " << a.element(ia)
                                       << ", " << b.element(ib);
}

Tensor empty(DataType type, const Shape& shape) {
  Result<Tensor> t = tuning::EmptyTensor(type, shape);
  EXPECT_TRUE(t.ok());
  return std::move(t).value();
}

// Random operands; Pow gets positive bases so that most results are numbers.
Tensor operand(DataType type, const Shape& shape, std::uint64_t seed, BinaryOp op, bool base) {
  Result<Tensor> t = tuning::RandnTensor(type, shape, seed);
  EXPECT_TRUE(t.ok());
  if (op == BinaryOp::POW && base) {
    for (std::int64_t i = 0; i < t->size(); ++i) {
      const double v = std::fabs(t->element(i)) + 0.25;
      switch (type) {
        case DataType::FLOAT: t->as<float>()[i] = static_cast<float>(v); break;
        case DataType::DOUBLE: t->as<double>()[i] = v; break;
        case DataType::FLOAT16: t->as<std::uint16_t>()[i] = core::float_to_float16(static_cast<float>(v)); break;
        case DataType::BFLOAT16: t->as<std::uint16_t>()[i] = core::float_to_bfloat16(static_cast<float>(v)); break;
        default: break;
      }
    }
  }
  return std::move(t).value();
}

// The instruction sets this processor runs (each test runs them all).
std::vector<CpuIsa> runnable_isas() {
  std::vector<CpuIsa> isas;
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (can_run(isa, here)) isas.push_back(isa);
  }
  return isas;
}

BinaryElementwiseTuning small_thresholds() {
  BinaryElementwiseTuning config;
  config.simd_min_elements = 16;
  config.parallel_minimum_elements = 1000;
  config.maximum_threads = 2;
  return config;
}

// Runs op on a and b on every path and instruction set; every output element
// checked against the reference at its broadcast operand positions.
void check_all_paths(BinaryOp op, const Tensor& a, const Tensor& b, const std::string& what) {
  Result<Shape> shape = tuning::broadcast_shapes(a.shape, b.shape);
  ASSERT_TRUE(shape.ok()) << shape.error().message();
  const Shape& out_shape = *shape;
  const std::size_t rank = out_shape.size();
  const std::int64_t n = tuning::element_count(out_shape);
  // Operand positions of each output element, computed independently of the kernel.
  std::vector<std::int64_t> ia(static_cast<std::size_t>(n)), ib(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, pa = 0, pb = 0, sa = 1, sb = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t coord = rest % out_shape[k];
      rest /= out_shape[k];
      const std::size_t back = rank - 1 - k;
      if (back < a.shape.size()) {
        const std::int64_t d = a.shape[a.shape.size() - 1 - back];
        pa += (d == 1 ? 0 : coord) * sa;
        sa *= d;
      }
      if (back < b.shape.size()) {
        const std::int64_t d = b.shape[b.shape.size() - 1 - back];
        pb += (d == 1 ? 0 : coord) * sb;
        sb *= d;
      }
    }
    ia[static_cast<std::size_t>(i)] = pa;
    ib[static_cast<std::size_t>(i)] = pb;
  }
  const BinaryElementwiseKernel kernel(op, small_thresholds());
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    ASSERT_TRUE(forced.ok());
    for (ExecutionPath path : kPaths) {
      Result<Tensor> out = tuning::EmptyTensor(output_type(op, a.type), out_shape);
      ASSERT_TRUE(out.ok());
      tuning::poison(*out);
      Error e = kernel.run(a, b, *out, path);
      ASSERT_TRUE(e.is_good()) << e.message();
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(matches(op, a, ia[static_cast<std::size_t>(i)], b, ib[static_cast<std::size_t>(i)], *out, i))
            << what << " " << to_string(op) << " " << core::to_string(a.type) << " isa=" << to_string(isa)
            << " path=" << static_cast<int>(path) << " i=" << i;
      }
    }
  }
}

struct OpType {
  BinaryOp op;
  DataType type;
};

std::vector<OpType> all_supported() {
  std::vector<OpType> cases;
  for (BinaryOp op : kAllBinaryOps) {
    for (DataType t : kTypes) {
      if (supports(op, t)) cases.push_back({op, t});
    }
  }
  return cases;
}

class BinaryKernelTest : public ::testing::TestWithParam<OpType> {};

TEST_P(BinaryKernelTest, EveryPathAndIsaMatchesTheReferenceOnEqualShapes) {
  const auto [op, type] = GetParam();
  for (std::int64_t n : {0, 1, 15, 17, 127, 1031, 70001}) {
    const Tensor a = operand(type, {n}, 3 + static_cast<std::uint64_t>(n), op, true);
    const Tensor b = operand(type, {n}, 1000 + static_cast<std::uint64_t>(n), op, false);
    check_all_paths(op, a, b, "n=" + std::to_string(n));
  }
}

TEST_P(BinaryKernelTest, EveryBroadcastingRuleMatchesTheReference) {
  const auto [op, type] = GetParam();
  const std::vector<std::pair<Shape, Shape>> rules = {
      {{37, 29}, {}},         {{}, {37, 29}},          {{1}, {1}},           {{37, 29}, {1}},  // scalar
      {{37, 29}, {29}},       {{29}, {37, 29}},                                                 // row
      {{37, 29}, {37, 1}},    {{37, 1}, {37, 29}},                                              // column
      {{31, 1}, {1, 23}},     {{4, 1, 9}, {3, 1}},     {{2, 3, 1, 5}, {3, 7, 1}},               // general
      {{5, 1, 3, 1}, {1, 4, 1, 6}}, {{0, 3}, {3}},     {{4, 0}, {1}},        {{2, 3, 4}, {2, 3, 4}}};
  std::uint64_t seed = 50;
  for (const auto& [sa, sb] : rules) {
    const Tensor a = operand(type, sa, ++seed, op, true);
    const Tensor b = operand(type, sb, ++seed, op, false);
    check_all_paths(op, a, b, tuning::to_string(sa) + " with " + tuning::to_string(sb));
  }
}

std::string name(const ::testing::TestParamInfo<OpType>& info) {
  return std::string(to_string(info.param.op)) + "_" + std::string(core::to_string(info.param.type));
}

INSTANTIATE_TEST_SUITE_P(Supported, BinaryKernelTest, ::testing::ValuesIn(all_supported()), name);

TEST(BinaryKernel, SupportedTypesAreTheMeaningfulOnes) {
  EXPECT_EQ(all_supported().size(), 66u);  // the pairs tuning.toml declares
  EXPECT_FALSE(supports(BinaryOp::DIV, DataType::INT32));
  EXPECT_FALSE(supports(BinaryOp::AND, DataType::FLOAT));
  EXPECT_FALSE(supports(BinaryOp::ADD, DataType::BOOL));
  EXPECT_TRUE(supports(BinaryOp::XOR, DataType::BOOL));
  EXPECT_EQ(output_type(BinaryOp::LESS, DataType::FLOAT16), DataType::BOOL);
  EXPECT_EQ(output_type(BinaryOp::POW, DataType::BFLOAT16), DataType::BFLOAT16);
  for (BinaryOp op : kAllBinaryOps) EXPECT_EQ(parse_binary_op(to_string(op)), op);
  EXPECT_FALSE(parse_binary_op("Abs").has_value());
}

TEST(BinaryKernel, ShapesThatDoNotBroadcastAreRefusedNamingThem) {
  const BinaryElementwiseKernel add(BinaryOp::ADD, {});
  const Tensor a = operand(DataType::FLOAT, {3}, 1, BinaryOp::ADD, false);
  const Tensor b = operand(DataType::FLOAT, {4}, 2, BinaryOp::ADD, false);
  Result<Tensor> out = tuning::EmptyTensor(DataType::FLOAT, {4});
  Error e = add.run(a, b, *out);
  EXPECT_EQ(e.code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(e.message().find("Add: "), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("[3]"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("[4]"), std::string::npos) << e.message();

  const Tensor rows = operand(DataType::FLOAT, {2, 3}, 3, BinaryOp::ADD, false);
  const Tensor col = operand(DataType::FLOAT, {3, 1}, 4, BinaryOp::ADD, false);
  EXPECT_EQ(add.run(rows, col, *out).code(), ErrorCode::INVALID_VALUE);
  const Tensor row = operand(DataType::FLOAT, {3}, 5, BinaryOp::ADD, false);
  Result<Tensor> wrong = tuning::EmptyTensor(DataType::FLOAT, {3, 3});
  e = add.run(rows, row, *wrong);
  EXPECT_EQ(e.message(), "Add: operands [2, 3] and [3] broadcast to [2, 3], but the output is [3, 3]");
}

TEST(BinaryKernel, WrongTypesAreRefusedNamingThem) {
  const Tensor f = operand(DataType::FLOAT, {4}, 1, BinaryOp::ADD, false);
  const Tensor d = operand(DataType::DOUBLE, {4}, 2, BinaryOp::ADD, false);
  const Tensor i = operand(DataType::INT32, {4}, 3, BinaryOp::ADD, false);
  Result<Tensor> out = tuning::EmptyTensor(DataType::FLOAT, {4});
  EXPECT_EQ(BinaryElementwiseKernel(BinaryOp::ADD, {}).run(f, d, *out).message(),
            "Add does not support operands float and double");
  Result<Tensor> iout = tuning::EmptyTensor(DataType::INT32, {4});
  EXPECT_EQ(BinaryElementwiseKernel(BinaryOp::DIV, {}).run(i, i, *iout).code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(BinaryElementwiseKernel(BinaryOp::LESS, {}).run(f, f, *out).message(),
            "Less of float writes bool, not float");
}

// Special values at positions in the vector body and in the tail.
TEST(BinaryKernel, NanAndInfinityPropagateOnEveryPathAndIsa) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  const std::vector<std::pair<double, double>> pairs = {{nan, 1.0}, {1.0, nan},  {nan, nan}, {kInf, -kInf},
                                                        {kInf, 1.0}, {-kInf, 2.0}, {1.0, 0.0}, {-0.0, 0.0},
                                                        {2.0, kInf}, {0.5, -kInf}};
  constexpr std::int64_t n = 67;
  for (DataType type : {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::BFLOAT16}) {
    Tensor a = operand(type, {n}, 7, BinaryOp::ADD, false);
    Tensor b = operand(type, {n}, 8, BinaryOp::ADD, false);
    auto set = [type](Tensor& t, std::int64_t i, double v) {
      switch (type) {
        case DataType::FLOAT: t.as<float>()[i] = static_cast<float>(v); break;
        case DataType::DOUBLE: t.as<double>()[i] = v; break;
        case DataType::FLOAT16: t.as<std::uint16_t>()[i] = core::float_to_float16(static_cast<float>(v)); break;
        default: t.as<std::uint16_t>()[i] = core::float_to_bfloat16(static_cast<float>(v)); break;
      }
    };
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      for (std::int64_t at : {static_cast<std::int64_t>(k), static_cast<std::int64_t>(n - 1 - k)}) {
        set(a, at, pairs[k].first);
        set(b, at, pairs[k].second);
      }
    }
    for (BinaryOp op : {BinaryOp::ADD, BinaryOp::SUB, BinaryOp::MUL, BinaryOp::DIV, BinaryOp::MAX, BinaryOp::MIN,
                        BinaryOp::POW, BinaryOp::EQUAL, BinaryOp::LESS, BinaryOp::GREATER}) {
      check_all_paths(op, a, b, "special values");
    }
  }
}

TEST(BinaryKernel, MaxAndMinOfNanAreNanWhicheverSideItIsOn) {
  const float nan = std::nanf("");
  Tensor a = empty(DataType::FLOAT, {4});
  Tensor b = empty(DataType::FLOAT, {4});
  const float av[] = {nan, 1.0f, -0.0f, 3.0f};
  const float bv[] = {1.0f, nan, 0.0f, 2.0f};
  std::copy(av, av + 4, a.as<float>());
  std::copy(bv, bv + 4, b.as<float>());
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    for (ExecutionPath path : kPaths) {
      Tensor mx = empty(DataType::FLOAT, {4});
      Tensor mn = empty(DataType::FLOAT, {4});
      ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::MAX, {}).run(a, b, mx, path).is_good());
      ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::MIN, {}).run(a, b, mn, path).is_good());
      EXPECT_TRUE(std::isnan(mx.as<float>()[0]) && std::isnan(mx.as<float>()[1]));
      EXPECT_TRUE(std::isnan(mn.as<float>()[0]) && std::isnan(mn.as<float>()[1]));
      // Of equal operands the second: +0 for max(-0, +0) and min(-0, +0).
      EXPECT_FALSE(std::signbit(mx.as<float>()[2]));
      EXPECT_FALSE(std::signbit(mn.as<float>()[2]));
      EXPECT_EQ(mx.as<float>()[3], 3.0f);
      EXPECT_EQ(mn.as<float>()[3], 2.0f);
    }
  }
}

// Float Pow in ULP of the float result against pow in double, over bases
// spread log-uniformly over every binade, exponents in [-24, 24] (a quarter
// of them integers, with negative bases), and, for half the operands, the
// exponent chosen so that y log x falls anywhere from the subnormal results
// to the overflow threshold, with bases within 2^-24..2^-1 of 1 for half of
// those (where |y| is largest and the error of log x counts most); the
// special operands are mixed into the same vectors; results that overflow
// or underflow to zero are compared exactly. The AVX2 and AVX-512 paths
// compute in double and round once (0.51 ULP); the portable path calls
// powf (1 ULP).
TEST(BinaryKernel, PowFloatIsWithinItsDocumentedUlpOfTheDoubleResultOnEveryPath) {
  const std::int64_t n = 200003;
  Tensor a = empty(DataType::FLOAT, {n});
  Tensor b = empty(DataType::FLOAT, {n});
  std::mt19937_64 engine(99);
  std::uniform_real_distribution<double> binade(-126.0, 127.0), exponent(-24.0, 24.0), target(-104.0, 89.0);
  std::uniform_real_distribution<double> closeness(1.0, 24.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool integral = i % 4 == 0;
    float base = static_cast<float>(std::exp2(binade(engine)));
    float power = static_cast<float>(exponent(engine));
    if (i % 4 == 1 || i % 4 == 2) {
      if (i % 4 == 1) {
        const double offset = std::exp2(-closeness(engine));
        base = static_cast<float>(i % 8 == 1 ? 1.0 + offset : 1.0 - offset);
        if (base == 1.0f) base = std::nextafter(1.0f, 2.0f);
      }
      power = static_cast<float>(target(engine) / std::log(static_cast<double>(base)));
    }
    if (integral) {
      power = std::round(power);
      if (i % 8 == 0) base = -base;
    }
    a.as<float>()[i] = base;
    b.as<float>()[i] = power;
  }
  const float specials[][2] = {{0.0f, 2.0f}, {-0.0f, -3.0f}, {1.0f, std::nanf("")}, {std::nanf(""), 0.0f},
                               {-2.0f, 0.5f}, {INFINITY, -1.0f}, {-INFINITY, 3.0f}, {0.5f, INFINITY},
                               {2.0f, -INFINITY}, {-1.0f, INFINITY}};
  for (std::size_t k = 0; k < std::size(specials); ++k) {
    a.as<float>()[7 * k + 3] = specials[k][0];
    b.as<float>()[7 * k + 3] = specials[k][1];
  }
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    Tensor out = empty(DataType::FLOAT, {n});
    ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::POW, {}).run(a, b, out, ExecutionPath::SERIAL_SIMD).is_good());
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double exact = std::pow(static_cast<double>(a.as<float>()[i]), static_cast<double>(b.as<float>()[i]));
      const float got = out.as<float>()[i];
      const auto rounded = static_cast<float>(exact);
      if (std::isnan(exact) || std::isinf(rounded) || rounded == 0.0f) {
        // NaN stays NaN; a result beyond the float range is the rounded one.
        if (std::isnan(exact)) {
          EXPECT_TRUE(std::isnan(got)) << a.as<float>()[i] << "^" << b.as<float>()[i];
        } else {
          EXPECT_EQ(got, rounded) << a.as<float>()[i] << "^" << b.as<float>()[i] << " " << to_string(isa);
        }
        continue;
      }
      worst = std::max(worst, ulp::ulp_error(DataType::FLOAT, exact, got));
    }
    EXPECT_LE(worst, isa == CpuIsa::PORTABLE ? 1.0 : 0.51) << to_string(isa);
    std::printf("Pow float %s: max %.4f ULP\n", std::string(to_string(isa)).c_str(), worst);
  }
}

// Double Pow in ULP of the double result against powl: bases over every
// binade (subnormals included) with exponents chosen so that the results
// spread over the whole range, overflow and subnormals included; bases
// within a few ULP of 1 with huge exponents (where a double log would lose
// everything) and within 2^-5 of 1 with results near the overflow and
// underflow thresholds; integral and other exponents of negative bases; the
// special operands. The AVX-512 and AVX2 paths compute exp(y log x) with
// log x in double-double (0.5078 ULP the most over 8 million operands of
// these kinds, the C library's pow 0.5132 on the same); the portable one
// calls pow.
TEST(BinaryKernel, PowDoubleIsWithinItsDocumentedUlpOfTheLongDoubleResultOnEveryPath) {
  const std::int64_t n = 200003;
  Tensor a = empty(DataType::DOUBLE, {n});
  Tensor b = empty(DataType::DOUBLE, {n});
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> binade(-1074.0, 1024.0), target(-750.0, 712.0), unit(-1.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) {
    double base = std::exp2(binade(engine));
    double power = target(engine) / std::log(base);
    if (i % 5 == 1) {
      // Near 1: x = 1 + k ulp, y up to 2^60.
      base = 1.0 + std::ldexp(std::round(unit(engine) * 64), -52);
      power = std::ldexp(unit(engine), 60);
    } else if (i % 10 == 3) {
      // Negative and near 1, with odd exponents up to 2^52.
      base = -(1.0 + std::ldexp(std::round(unit(engine) * 64), -52));
      power = 2 * std::round(std::ldexp(unit(engine), 51)) + 1;
    } else if (i % 5 == 2) {
      // Within 2^-5 of 1 (the bins around 1's) with results near the
      // overflow or underflow threshold: y log x amplifies log's error most.
      base = 1.0 + std::ldexp(unit(engine), -5);
      power = (unit(engine) > 0 ? 707.9 : -707.9) / std::log(base);
    } else if (i % 8 == 0) {
      base = -base;
      power = std::round(unit(engine) * 40);
    } else if (i % 8 == 4) {
      power = unit(engine) * 30;  // small exponents of every base
    } else if (i % 16 == 2) {
      base = -base;  // a negative base: NaN unless the exponent is an integer
      power = unit(engine) * 30;
    } else if (i % 16 == 10) {
      base = -base;  // odd and even integral exponents near the thresholds
      power = std::round(target(engine) / std::log(-base));
    } else if (i % 8 == 6) {
      power = (unit(engine) > 0 ? 707.5 : -707.5) / std::log(base) * (1 + unit(engine) * 1e-3);
    }
    if (!std::isfinite(power)) power = 2.0;
    a.as<double>()[i] = base;
    b.as<double>()[i] = power;
  }
  const double specials[][2] = {{0.0, 2.0},    {-0.0, -3.0},      {1.0, std::nan("")}, {std::nan(""), 0.0},
                                {-2.0, 0.5},   {INFINITY, -1.0},  {-INFINITY, 3.0},    {0.5, INFINITY},
                                {2.0, -INFINITY}, {-1.0, INFINITY}, {2.0, 10.0},       {10.0, -3.0},
                                {0x1p-1074, 0.5}, {0x1.fffffffffffffp1023, 1.0}, {2.0, 1024.0}, {2.0, -1075.0}};
  for (std::size_t k = 0; k < std::size(specials); ++k) {
    a.as<double>()[7 * k + 3] = specials[k][0];
    b.as<double>()[7 * k + 3] = specials[k][1];
  }
  for (CpuIsa isa : runnable_isas()) {
    auto forced = ScopedIsa::force(isa);
    for (ExecutionPath path : {ExecutionPath::SERIAL_SIMD, ExecutionPath::PARALLEL_SIMD}) {
      Tensor out = empty(DataType::DOUBLE, {n});
      tuning::poison(out);
      ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::POW, {}).run(a, b, out, path, 2).is_good());
      double worst = 0;
      double worst_x = 0, worst_y = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double x = a.as<double>()[i], y = b.as<double>()[i];
        const long double exact = powl(static_cast<long double>(x), static_cast<long double>(y));
        const double got = out.as<double>()[i];
        const auto rounded = static_cast<double>(exact);
        if (std::isnan(exact) || std::isinf(rounded) || std::fabs(rounded) < 0x1p-1022) {
          // NaN stays NaN; beyond the range and among subnormals the C
          // library's pow answers (a subnormal within its own ULP).
          if (std::isnan(exact)) {
            EXPECT_TRUE(std::isnan(got)) << x << "^" << y;
          } else {
            EXPECT_EQ(got, std::pow(x, y)) << x << "^" << y << " " << to_string(isa);
          }
          continue;
        }
        const double error = ulp::ulp_error(DataType::DOUBLE, exact, got);
        if (!(error <= worst)) {
          worst = error;
          worst_x = x;
          worst_y = y;
        }
      }
      EXPECT_LE(worst, isa == CpuIsa::PORTABLE ? 1.0 : 0.52) << to_string(isa) << " at " << worst_x << "^" << worst_y;
      std::printf("Pow double %s path %d: max %.4f ULP (%.17g ^ %.17g)\n", std::string(to_string(isa)).c_str(),
                  static_cast<int>(path), worst, worst_x, worst_y);
    }
  }
}

// Pow with the output in place of an operand: the vector paths' lanes that
// fall back to the C library (zero, infinite and NaN operands) must read
// the operands, not what the vector store just wrote over them.
TEST(BinaryKernel, PowInPlaceGivesTheSameBitsOnEveryPath) {
  const std::int64_t n = 1003;
  const auto copy_of = [](const Tensor& t) {
    Tensor c = empty(t.type, t.shape);
    std::memcpy(c.data(), t.data(), t.bytes());
    return c;
  };
  for (DataType type : {DataType::FLOAT, DataType::DOUBLE}) {
    Tensor a = operand(type, {n}, 5, BinaryOp::ADD, false);  // both signs
    const Tensor b = operand(type, {n}, 6, BinaryOp::ADD, false);
    const double specials[] = {0.0, INFINITY, std::nan(""), -0.0, -INFINITY, 2.0};
    for (std::int64_t i = 0; i < n; i += 5) {
      const double v = specials[(i / 5) % std::size(specials)];
      if (type == DataType::FLOAT) {
        a.as<float>()[i] = static_cast<float>(v);
      } else {
        a.as<double>()[i] = v;
      }
    }
    for (CpuIsa isa : runnable_isas()) {
      auto forced = ScopedIsa::force(isa);
      for (ExecutionPath path : kPaths) {
        Tensor expected = empty(type, {n});
        ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::POW, {}).run(a, b, expected, path, 2).is_good());
        for (bool into_a : {true, false}) {
          Tensor x = copy_of(a), y = copy_of(b);
          Tensor& target = into_a ? x : y;
          ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::POW, {}).run(x, y, target, path, 2).is_good());
          EXPECT_EQ(std::memcmp(expected.data(), target.data(), expected.bytes()), 0)
              << core::to_string(type) << " " << to_string(isa) << " path " << static_cast<int>(path)
              << (into_a ? " into a" : " into b");
        }
      }
    }
  }
}

TEST(BinaryKernel, IntegerArithmeticWrapsAtTheLimits) {
  Tensor a = empty(DataType::INT32, {3});
  Tensor b = empty(DataType::INT32, {3});
  a.as<std::int32_t>()[0] = INT32_MAX; b.as<std::int32_t>()[0] = 1;
  a.as<std::int32_t>()[1] = INT32_MIN; b.as<std::int32_t>()[1] = -1;
  a.as<std::int32_t>()[2] = 65536;     b.as<std::int32_t>()[2] = 65536;
  Tensor sum = empty(DataType::INT32, {3});
  Tensor product = empty(DataType::INT32, {3});
  ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::ADD, {}).run(a, b, sum, ExecutionPath::SERIAL_SIMD).is_good());
  ASSERT_TRUE(BinaryElementwiseKernel(BinaryOp::MUL, {}).run(a, b, product, ExecutionPath::SERIAL_SIMD).is_good());
  EXPECT_EQ(sum.as<std::int32_t>()[0], INT32_MIN);
  EXPECT_EQ(sum.as<std::int32_t>()[1], INT32_MAX);
  EXPECT_EQ(product.as<std::int32_t>()[1], INT32_MIN);
  EXPECT_EQ(product.as<std::int32_t>()[2], 0);
}

TEST(BinaryKernel, SerialAndParallelGiveTheSameBitsOnALargeBroadcast) {
  const Tensor a = operand(DataType::FLOAT16, {513, 1031}, 21, BinaryOp::DIV, false);
  const Tensor b = operand(DataType::FLOAT16, {513, 1}, 22, BinaryOp::DIV, false);
  Tensor serial = empty(DataType::FLOAT16, {513, 1031});
  Tensor parallel = empty(DataType::FLOAT16, {513, 1031});
  tuning::poison(parallel);
  const BinaryElementwiseKernel div(BinaryOp::DIV, small_thresholds());
  ASSERT_TRUE(div.run(a, b, serial, ExecutionPath::SERIAL_SIMD).is_good());
  for (int threads : {2, 3, 7}) {
    tuning::poison(parallel);
    ASSERT_TRUE(div.run(a, b, parallel, ExecutionPath::PARALLEL_SIMD, threads).is_good());
    ASSERT_EQ(std::memcmp(serial.data(), parallel.data(), serial.bytes()), 0) << threads << " threads";
  }
}

TEST(BinaryKernel, PathFollowsTheConfiguredThresholds) {
  expect_path_follows_the_thresholds<BinaryElementwiseKernel, BinaryElementwiseTuning>(BinaryOp::ADD);
}

TEST(BinaryKernel, TeamIsTheMaximumCappedAtOpenMpsThreadLimit) {
  expect_team_capped_at_the_openmp_limit<BinaryElementwiseKernel, BinaryElementwiseTuning>(BinaryOp::ADD);
}

TEST(BinaryKernel, IsaPathsThisProcessorCannotRunAreSkippedWithAReason) {
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  if (!can_run(CpuIsa::AVX512, here)) GTEST_SKIP() << "this processor has no AVX-512 (F, BW, VL, DQ): path not run";
  EXPECT_EQ(runnable_isas().size(), 3u);
}

}  // namespace
}  // namespace tunekit::cpu
