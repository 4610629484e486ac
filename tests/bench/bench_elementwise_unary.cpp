// Throughput of tunekit's vectorised Exp, Tanh and Sigmoid (float, serial
// SIMD path of the active instruction set) against SLEEF's vector functions
// of the same width, both timed in the same iteration on the same input.
// Counters: tunekit and SLEEF elements per second and vs_sleef (tunekit's
// throughput over SLEEF's: above 1 is faster). Where the processor has
// neither AVX-512 nor AVX2, SLEEF has no vector set here and the benchmark
// is skipped.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>

#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "unary_sleef_loops.hpp"

namespace {

using tunekit::DataType;
using tunekit::cpu::CpuIsa;
using tunekit::cpu::ExecutionPath;
using tunekit::cpu::UnaryOp;
using Clock = std::chrono::steady_clock;

tunekit::bench::SleefOp sleef_op(UnaryOp op) {
  switch (op) {
    case UnaryOp::TANH: return tunekit::bench::SleefOp::TANH;
    case UnaryOp::SIGMOID: return tunekit::bench::SleefOp::SIGMOID;
    default: return tunekit::bench::SleefOp::EXP;
  }
}

void BM_FloatVsSleef(benchmark::State& state, UnaryOp op) {
  const CpuIsa isa = tunekit::cpu::active_isa();
  if (isa == CpuIsa::PORTABLE) {
    state.SkipWithError("no AVX2 or AVX-512 on this processor: SLEEF's vector functions are not comparable here");
    return;
  }
  const std::int64_t n = state.range(0);
  // Inputs spread over the range where the functions do work (|x| < 20).
  const auto input = tunekit::tuning::RandnTensor(DataType::FLOAT, {n}, 42);
  auto ours = tunekit::tuning::EmptyTensor(DataType::FLOAT, {n});
  auto theirs = tunekit::tuning::EmptyTensor(DataType::FLOAT, {n});
  if (!input.ok() || !ours.ok() || !theirs.ok()) {
    state.SkipWithError("could not allocate the tensors");
    return;
  }
  float* x = input->as<float>();
  for (std::int64_t i = 0; i < n; ++i) x[i] *= 6.0f;
  const tunekit::cpu::UnaryElementwiseKernel kernel(op, {});
  const auto reference = isa == CpuIsa::AVX512 ? tunekit::bench::sleef_avx512 : tunekit::bench::sleef_avx2;
  double ours_s = 0;
  double theirs_s = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    if (kernel.run(*input, *ours, ExecutionPath::SERIAL_SIMD).is_bad()) {
      state.SkipWithError("the kernel failed");
      return;
    }
    benchmark::DoNotOptimize(ours->as<float>());
    const auto t1 = Clock::now();
    reference(sleef_op(op), x, theirs->as<float>(), n);
    benchmark::DoNotOptimize(theirs->as<float>());
    const auto t2 = Clock::now();
    const double a = std::chrono::duration<double>(t1 - t0).count();
    ours_s += a;
    theirs_s += std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(a);
  }
  const double elements = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["tunekit_elem_per_s"] = elements / ours_s;
  state.counters["sleef_elem_per_s"] = elements / theirs_s;
  state.counters["vs_sleef"] = theirs_s / ours_s;
  state.SetLabel(std::string(tunekit::cpu::to_string(isa)));
}

BENCHMARK_CAPTURE(BM_FloatVsSleef, Exp, UnaryOp::EXP)->UseManualTime()->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_FloatVsSleef, Tanh, UnaryOp::TANH)->UseManualTime()->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_FloatVsSleef, Sigmoid, UnaryOp::SIGMOID)->UseManualTime()->Arg(1 << 14)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
