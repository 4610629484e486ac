// bench_measure: the overhead of one timed sample on the CPU timer, against
// the reference of two bare steady_clock reads measured in the same run.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/measure/statistics.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ns(Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  long samples = 100000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0) samples = std::strtol(argv[i + 1], nullptr, 10);
  }
  if (samples < 1) {
    std::fputs("usage: bench_measure [-n N]   (N >= 1)\n", stderr);
    return 2;
  }
  using namespace tunekit;
  platform::CpuDevice device;
  auto stream = device.create_stream();
  auto timer = device.create_timer(**stream);
  if (!stream.ok() || !timer.ok()) return 1;

  // One timed sample of an empty action: start, stop, synchronize, read.
  std::vector<double> timed_sample, bare_clock;
  for (long i = 0; i < samples; ++i) {
    const auto t0 = Clock::now();
    (void)(*timer)->start();
    (void)(*timer)->stop();
    (void)(*stream)->synchronize();
    auto elapsed = (*timer)->elapsed_ms();
    const auto t1 = Clock::now();
    if (!elapsed.ok()) return 1;
    const auto t2 = Clock::now();
    const auto t3 = Clock::now();
    timed_sample.push_back(ns(t1 - t0));
    bare_clock.push_back(ns(t3 - t2));
  }

  // A batched sample of an action that does almost nothing.
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
  if (sampler.calibrate().is_bad()) return 1;
  std::vector<double> per_execution;
  for (int i = 0; i < 200; ++i) {
    auto sample = sampler.sample();
    if (!sample.ok()) return 1;
    per_execution.push_back(*sample * 1e6);
  }

  const double overhead = measure::median(timed_sample);
  const double reference = measure::median(bare_clock);
  std::printf("bench_measure: %ld samples, steady_clock resolution %.1f ns\n", samples,
              options.clock_resolution_s * 1e9);
  std::printf("timed sample overhead (start/stop/sync/read) median: %8.1f ns\n", overhead);
  std::printf("reference: two bare steady_clock reads median:       %8.1f ns   ratio %.2f\n", reference,
              overhead / reference);
  std::printf("batched sample of a trivial action: batch %lld, %.2f ns per execution (median of 200)\n",
              static_cast<long long>(sampler.batch_size()), measure::median(per_execution));
  return 0;
}
