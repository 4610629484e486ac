// Every value, not a sample: all 2^16 FLOAT16 and BFLOAT16 bit patterns on
// the serial scalar path and the SIMD path of every instruction set this
// processor runs, and all 2^32 float ones on
// its vector paths (AVX2, AVX-512), through each transcendental and Sqrt,
// against a double reference. The maximum error must stay within max_ulp()
// (tunekit/cpu/unary_accuracy.hpp), and a zero must have the sign of the
// exact result; NaNs of every payload, both infinities, both zeros and
// every subnormal are inputs by construction. The portable
// path's float results are measured over every exponent in
// unary_accuracy_test.cpp: its scalar loop takes 15-20 times as long as a
// vector path over every float (subnormal intermediates), about 3 minutes
// per operation on two cores. The float sweep takes about 40 s per
// operation, hence the "slow" label.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
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

struct Worst {
  double ulp = 0;
  double input = 0;
  double got = 0;
};

void keep_worse(Worst& worst, double ulp, double input, double got) {
  if (!(ulp <= worst.ulp)) worst = {ulp, input, got};
}

// Not a result any operation gives for an input it is measured at: a
// value the kernel left unwritten shows as an error of many ULP, for NaN
// inputs too.
constexpr float kUnwritten = 3.0e38f;

std::vector<CpuIsa> runnable(std::initializer_list<CpuIsa> candidates) {
  std::vector<CpuIsa> isas;
  const platform::CpuDescriptor here = platform::detect_cpu_descriptor();
  for (CpuIsa isa : candidates) {
    if (can_run(isa, here)) isas.push_back(isa);
  }
  return isas;
}

// Every float through `op` on each of `isas`, a batch at a time: each path
// runs the batch (forced, on the parallel path, whose blocks are the serial
// SIMD code), then the team computes each value's reference once and
// compares every path's result with it. The worst error per path.
std::vector<Worst> sweep_every_float(UnaryOp op, const std::vector<CpuIsa>& isas) {
  constexpr std::int64_t kBatch = std::int64_t{1} << 22;
  constexpr std::int64_t kBatches = (std::int64_t{1} << 32) / kBatch;
  const UnaryElementwiseKernel kernel(op, {});
  Tensor in = tuning::EmptyTensor(DataType::FLOAT, {kBatch}).value();
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < isas.size(); ++k) out.push_back(tuning::EmptyTensor(DataType::FLOAT, {kBatch}).value());
  std::vector<Worst> worst(isas.size());
  for (std::int64_t batch = 0; batch < kBatches; ++batch) {
    auto* bits = in.as<std::uint32_t>();
    for (std::int64_t i = 0; i < kBatch; ++i) bits[i] = static_cast<std::uint32_t>(batch * kBatch + i);
    for (std::size_t k = 0; k < isas.size(); ++k) {
      std::fill_n(out[k].as<float>(), kBatch, kUnwritten);
      auto forced = ScopedIsa::force(isas[k]);
      if (!forced.ok() || kernel.run(in, out[k], ExecutionPath::PARALLEL_SIMD).is_bad()) {
        worst[k] = {HUGE_VAL, 0, 0};
        return worst;
      }
    }
    const float* x = in.as<float>();
    std::vector<const float*> y;
    for (const Tensor& t : out) y.push_back(t.as<float>());
#pragma omp parallel
    {
      std::vector<Worst> local(isas.size());
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < kBatch; ++i) {
        const double expected = ulp::reference(op, static_cast<double>(x[i]));
        const auto rounded = static_cast<float>(expected);
        for (std::size_t k = 0; k < isas.size(); ++k) {
          const float got = y[k][i];
          // Equal to the correctly rounded result: within half an ULP,
          // which every bound allows; only the others need the exact error.
          if (got == rounded && (got != 0 || std::signbit(got) == std::signbit(rounded))) continue;
          keep_worse(local[k], ulp::float_ulp_error(expected, got), x[i], got);
        }
      }
#pragma omp critical
      for (std::size_t k = 0; k < isas.size(); ++k) keep_worse(worst[k], local[k].ulp, local[k].input, local[k].got);
    }
  }
  return worst;
}

// Every FLOAT16 or BFLOAT16 bit pattern through `op` on `path`, against the
// double reference of the value it encodes, in ULP of the half type.
Worst sweep_every_half(UnaryOp op, DataType type, ExecutionPath path) {
  constexpr std::int64_t kValues = 1 << 16;
  const bool float16 = type == DataType::FLOAT16;
  const auto decode = [float16](std::uint16_t h) {
    return float16 ? core::float16_to_float(h) : core::bfloat16_to_float(h);
  };
  Tensor in = tuning::EmptyTensor(type, {kValues}).value();
  Tensor out = tuning::EmptyTensor(type, {kValues}).value();
  auto* bits = in.as<std::uint16_t>();
  for (std::int64_t i = 0; i < kValues; ++i) bits[i] = static_cast<std::uint16_t>(i);
  // The largest finite value of each type: no input of a measured
  // operation gives it exactly.
  std::fill_n(out.as<std::uint16_t>(), kValues, static_cast<std::uint16_t>(float16 ? 0x7BFF : 0x7F7F));
  Worst worst;
  if (UnaryElementwiseKernel(op, {}).run(in, out, path).is_bad()) {
    worst.ulp = HUGE_VAL;
    return worst;
  }
  const auto* y = out.as<std::uint16_t>();
  for (std::int64_t i = 0; i < kValues; ++i) {
    const double x = decode(bits[i]);
    const double got = decode(y[i]);
    keep_worse(worst, ulp::ulp_error(type, ulp::reference(op, static_cast<long double>(x)), got), x, got);
  }
  return worst;
}

// `path` with its worst error, for the printed line.
std::string describe(std::string_view path, const Worst& w) {
  // The float sweep measures only results that differ from the correctly
  // rounded one: none at all is 0 here.
  if (w.ulp == 0) return std::string(path) + " correctly rounded everywhere; ";
  char text[160];
  std::snprintf(text, sizeof text, "%s %.3f ULP (x=%.9g gave %.9g); ", std::string(path).c_str(), w.ulp, w.input,
                w.got);
  return text;
}

class EveryValue : public ::testing::TestWithParam<UnaryOp> {};

TEST_P(EveryValue, EveryFloatIsWithinTheDocumentedBoundOnEveryVectorPath) {
  const UnaryOp op = GetParam();
  const double bound = max_ulp(op, DataType::FLOAT);
  std::string line;
  const std::vector<CpuIsa> isas = runnable({CpuIsa::AVX2, CpuIsa::AVX512});
  if (isas.empty()) GTEST_SKIP() << "this processor runs no vector path (the portable one is sampled elsewhere)";
  const std::vector<Worst> worst = sweep_every_float(op, isas);
  for (std::size_t k = 0; k < isas.size(); ++k) {
    EXPECT_LE(worst[k].ulp, bound) << to_string(op) << " " << to_string(isas[k]) << " worst at x=" << worst[k].input
                                   << " gave " << worst[k].got;
    line += describe(to_string(isas[k]), worst[k]);
  }
  std::printf("[every float] %s over 2^32 values, bound %.2f: %s\n", std::string(to_string(op)).c_str(), bound,
              line.c_str());
}

TEST_P(EveryValue, EveryFloat16AndBfloat16IsWithinTheDocumentedBoundOnEveryPathAndIsa) {
  const UnaryOp op = GetParam();
  for (DataType type : {DataType::FLOAT16, DataType::BFLOAT16}) {
    const double bound = max_ulp(op, type);
    std::string line;
    const Worst scalar = sweep_every_half(op, type, ExecutionPath::SERIAL_SCALAR);
    EXPECT_LE(scalar.ulp, bound) << to_string(op) << " " << core::to_string(type) << " serial scalar worst at x="
                                 << scalar.input << " gave " << scalar.got;
    line += describe("serial scalar", scalar);
    for (CpuIsa isa : runnable({CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512})) {
      auto forced = ScopedIsa::force(isa);
      ASSERT_TRUE(forced.ok());
      const Worst w = sweep_every_half(op, type, ExecutionPath::SERIAL_SIMD);
      EXPECT_LE(w.ulp, bound) << to_string(op) << " " << core::to_string(type) << " " << to_string(isa)
                              << " worst at x=" << w.input << " gave " << w.got;
      line += describe(to_string(isa), w);
    }
    std::printf("[every %s] %s over 2^16 values, bound %.2f: %s\n", std::string(core::to_string(type)).c_str(),
                std::string(to_string(op)).c_str(), bound, line.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Transcendentals, EveryValue,
                         ::testing::Values(UnaryOp::EXP, UnaryOp::LOG, UnaryOp::TANH, UnaryOp::SIGMOID, UnaryOp::ERF,
                                           UnaryOp::SQRT),
                         [](const ::testing::TestParamInfo<UnaryOp>& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace tunekit::cpu
