// Add on 2^25 floats against a plain OpenMP triad (a[i] = b[i] + s * c[i])
// of the same size, on the same threads and the same buffers, both timed in
// every iteration of one benchmark so that the ratio compares runs under the
// same machine state. Counters: each one's bandwidth in GB/s (two streams
// read, one written: 12 bytes per element) and add_vs_triad, the triad's
// time over Add's (goal: at least 0.90). Then Pow against powf and pow (below).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>

#include "tunekit/cpu/binary_elementwise.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using tunekit::tuning::Tensor;

// The reference: what a compiler makes of the plainest parallel loop.
void triad(float* out, const float* b, const float* c, float s, std::int64_t n, int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = b[i] + s * c[i];
}

// Pages touched by the threads that later stream them (first touch).
Tensor touched(std::int64_t n, float value, int threads) {
  Tensor t = std::move(tunekit::tuning::EmptyTensor(tunekit::DataType::FLOAT, {n})).value();
  float* p = t.as<float>();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) p[i] = value + static_cast<float>(i % 7);
  return t;
}

void BM_AddVsTriad(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const int threads = omp_get_max_threads();
  Tensor a = touched(n, 1.0f, threads);
  Tensor b = touched(n, 2.0f, threads);
  Tensor out = touched(n, 0.0f, threads);
  tunekit::cpu::BinaryElementwiseTuning config;
  config.maximum_threads = threads;
  const tunekit::cpu::BinaryElementwiseKernel add(tunekit::cpu::BinaryOp::ADD, config);
  const auto path = threads > 1 ? tunekit::cpu::ExecutionPath::PARALLEL_SIMD : tunekit::cpu::ExecutionPath::SERIAL_SIMD;
  double add_seconds = 0.0;
  double triad_seconds = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    triad(out.as<float>(), a.as<float>(), b.as<float>(), 0.5f, n, threads);
    benchmark::ClobberMemory();
    const auto t1 = Clock::now();
    if (add.run(a, b, out, path, threads).is_bad()) {
      state.SkipWithError("Add failed");
      return;
    }
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    const double add_s = std::chrono::duration<double>(t2 - t1).count();
    add_seconds += add_s;
    triad_seconds += std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(add_s);
  }
  const double bytes = 12.0 * static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["add_GBps"] = bytes / add_seconds * 1e-9;
  state.counters["triad_GBps"] = bytes / triad_seconds * 1e-9;
  state.counters["add_vs_triad"] = triad_seconds / add_seconds;
  state.counters["threads"] = threads;
}
BENCHMARK(BM_AddVsTriad)->Arg(std::int64_t{1} << 25)->UseManualTime()->Unit(benchmark::kMillisecond);

// Pow on floats or doubles, one thread, against the C library's powf or pow
// in a plain loop over the same operands (bases in (0, 40], exponents in
// [-8, 8]); both in every iteration. Counter pow_vs_libm: the C library's
// time over Pow's.
template <class T>
void BM_PowVsLibm(benchmark::State& state) {
  constexpr tunekit::DataType kType = sizeof(T) == 4 ? tunekit::DataType::FLOAT : tunekit::DataType::DOUBLE;
  const std::int64_t n = state.range(0);
  Tensor x = std::move(tunekit::tuning::EmptyTensor(kType, {n})).value();
  Tensor y = std::move(tunekit::tuning::EmptyTensor(kType, {n})).value();
  Tensor out = std::move(tunekit::tuning::EmptyTensor(kType, {n})).value();
  for (std::int64_t i = 0; i < n; ++i) {
    x.as<T>()[i] = T(40) * static_cast<T>((i * 7919) % 10007 + 1) / T(10007);
    y.as<T>()[i] = T(16) * static_cast<T>((i * 104729) % 10009) / T(10009) - T(8);
  }
  const tunekit::cpu::BinaryElementwiseKernel pow(tunekit::cpu::BinaryOp::POW, {});
  double pow_seconds = 0.0;
  double libm_seconds = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const T* xs = x.as<T>();
    const T* ys = y.as<T>();
    T* o = out.as<T>();
    for (std::int64_t i = 0; i < n; ++i) o[i] = std::pow(xs[i], ys[i]);
    benchmark::ClobberMemory();
    const auto t1 = Clock::now();
    if (pow.run(x, y, out, tunekit::cpu::ExecutionPath::SERIAL_SIMD).is_bad()) {
      state.SkipWithError("Pow failed");
      return;
    }
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    const double pow_s = std::chrono::duration<double>(t2 - t1).count();
    pow_seconds += pow_s;
    libm_seconds += std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(pow_s);
  }
  state.counters["ns_per_element"] = pow_seconds / static_cast<double>(n * state.iterations()) * 1e9;
  state.counters["pow_vs_libm"] = libm_seconds / pow_seconds;
}
BENCHMARK_TEMPLATE(BM_PowVsLibm, float)->Arg(std::int64_t{1} << 16)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_PowVsLibm, double)->Arg(std::int64_t{1} << 16)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
