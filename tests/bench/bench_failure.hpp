// A benchmark binary that must exit non-zero when a benchmark fails (not just
// print the error): Google Benchmark 1.7.1 reports SkipWithError but its
// main still returns 0. fail() records the failure, run_benchmarks() returns
// 1 when any benchmark failed, and keeps every --benchmark_* flag working.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>

namespace tunekit::bench {

inline std::atomic<bool>& failed() {
  static std::atomic<bool> flag{false};
  return flag;
}

inline void fail(benchmark::State& state, const char* message) {
  failed() = true;
  state.SkipWithError(message);
}

inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failed() ? 1 : 0;
}

}  // namespace tunekit::bench
