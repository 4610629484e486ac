// bench_measure: the overhead of one timed sample on the CPU timer, against
// the reference of two bare steady_clock reads timed in the same iterations
// (counter ratio = timed sample / reference), and the per-execution time of
// a batched sample of a trivial action. Exits non-zero when the timer or the
// sampler fails.
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench_failure.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace tunekit;
double ns(Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

// One timed sample of an empty action: start, stop, synchronize, read. The
// reference is timed right after it in every iteration, so both see the same
// machine state.
void BM_TimedSample(benchmark::State& state) {
  platform::CpuDevice device;
  auto stream = device.create_stream();
  if (!stream.ok()) return tunekit::bench::fail(state, "create_stream failed");
  auto timer = device.create_timer(**stream);
  if (!timer.ok()) return tunekit::bench::fail(state, "create_timer failed");
  double timed_ns = 0.0;
  double reference_ns = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    (void)(*timer)->start();
    (void)(*timer)->stop();
    (void)(*stream)->synchronize();
    auto elapsed = (*timer)->elapsed_ms();
    const auto t1 = Clock::now();
    if (!elapsed.ok()) return tunekit::bench::fail(state, "elapsed_ms failed");
    const auto t2 = Clock::now();
    const auto t3 = Clock::now();
    timed_ns += ns(t1 - t0);
    reference_ns += ns(t3 - t2);
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["reference_ns"] = reference_ns / n;
  state.counters["ratio"] = timed_ns / reference_ns;
}
BENCHMARK(BM_TimedSample)->UseManualTime()->Unit(benchmark::kNanosecond);

// The reference on its own: two bare steady_clock reads.
void BM_BareClockPair(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(Clock::now());
    benchmark::DoNotOptimize(Clock::now());
  }
}
BENCHMARK(BM_BareClockPair)->Unit(benchmark::kNanosecond);

// A batched sample of an action that does almost nothing: the figure is the
// sampler's own per-execution time (counter ns_per_execution), with its
// calibrated batch size and the clock resolution it was given.
void BM_BatchedSample(benchmark::State& state) {
  volatile int sink = 0;
  measure::BatchedSamplerOptions options;
  options.clock_resolution_s = platform::steady_clock_resolution_seconds();
  measure::BatchedSampler sampler(
      [] { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); },
      [&] {
        sink = sink + 1;
        return Error::ok();
      },
      {}, options);
  if (sampler.calibrate().is_bad()) return tunekit::bench::fail(state, "calibrate failed");
  double per_execution_ns = 0.0;
  for (auto _ : state) {
    auto sample = sampler.sample();
    if (!sample.ok()) return tunekit::bench::fail(state, "sample failed");
    per_execution_ns += *sample * 1e6;
  }
  state.counters["ns_per_execution"] = per_execution_ns / static_cast<double>(state.iterations());
  state.counters["batch"] = static_cast<double>(sampler.batch_size());
  state.counters["clock_resolution_ns"] = options.clock_resolution_s * 1e9;
}
BENCHMARK(BM_BatchedSample)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) { return tunekit::bench::run_benchmarks(argc, argv); }
