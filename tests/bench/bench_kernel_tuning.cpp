// bench_kernel_tuning: the one-time cost of tuning (snapshot capture,
// resolution of one key among 1,000 registered profiles, session create and
// configure, each its own benchmark) and the steady-state cost of a tuned
// kernel's run against the same loop without tuning, timed in the same
// iterations (counter ratio = tuned / plain, target <= 1.02 in the label).
// Exits non-zero when a steady run touches the registry. The environment
// variable TUNEKIT_BENCH_RECONFIGURE_EVERY_RUN=1 makes the kernel configure
// itself at every run, so that the check's own failure can be tested.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_failure.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::tuning;
using Clock = std::chrono::steady_clock;

struct ScaleTuning {
  std::int64_t block = 1024;
  std::int64_t unroll = 4;
};

const TuningBinding<ScaleTuning>& binding() {
  static const TuningBinding<ScaleTuning> b = [] {
    TuningBinding<ScaleTuning> x;
    x.field("algorithm.block", &ScaleTuning::block, FieldRules().at_least(16).multiple(16))
        .field("algorithm.unroll", &ScaleTuning::unroll, FieldRules().at_least(1).at_most(8));
    return x;
  }();
  return b;
}

const KernelTuningKey kKey{"bench", "Scale", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 1};

// y = 2x + 1 in blocks of the configured size. Never inlined, so that the
// tuned kernel and the plain call run the same machine code and the
// difference measured is only what tuning adds to a run.
[[gnu::noinline]] void scale_blocked(const std::vector<float>& x, std::vector<float>& y, std::int64_t block) {
  const std::size_t n = x.size();
  const auto b = static_cast<std::size_t>(block);
  for (std::size_t begin = 0; begin < n; begin += b) {
    const std::size_t end = begin + b < n ? begin + b : n;
    for (std::size_t i = begin; i < end; ++i) y[i] = 2.0f * x[i] + 1.0f;
  }
}

class ScaleKernel {
 public:
  ScaleKernel(TuningSession session, bool reconfigure_every_run)
      : session_(std::move(session)), reconfigure_every_run_(reconfigure_every_run) {}
  void run(const std::vector<float>& x, std::vector<float>& y) {
    if (!configured_ || reconfigure_every_run_) {
      config_ = session_.configure(binding(), kKey);
      configured_ = true;
    }
    scale_blocked(x, y, config_.block);
  }
  std::int64_t block() const { return config_.block; }

 private:
  TuningSession session_;
  ScaleTuning config_;
  bool reconfigure_every_run_;
  bool configured_ = false;
};

// 1,000 profiles for the one key: exact processors, model lists,
// microarchitectures, families and instruction-set classes, plus one exact
// profile for this machine when its identity is known.
bool register_profiles(KernelTuningRegistry& registry, const platform::CpuExecutionDescriptor& here) {
  registry.register_schema(binding().schema(kKey));
  std::vector<KernelTuningProfile> profiles;
  const platform::CpuFeature isa[] = {platform::CpuFeature::SSE2, platform::CpuFeature::AVX,
                                      platform::CpuFeature::AVX2, platform::CpuFeature::FMA,
                                      platform::CpuFeature::AVX512F, platform::CpuFeature::NEON};
  for (int i = 0; profiles.size() < 999; ++i) {
    CpuSelector s;
    switch (i % 5) {
      case 0: s.vendor = "Vendor" + std::to_string(i % 7); s.family = 100 + static_cast<std::uint32_t>(i % 13);
              s.models = {static_cast<std::uint32_t>(i)}; break;
      case 1: s.vendor = "Vendor" + std::to_string(i % 7); s.family = 200;
              s.models = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1)}; break;
      case 2: s.microarchitecture = "uarch" + std::to_string(i); break;
      case 3: s.vendor = "Vendor" + std::to_string(i); s.family = 300; break;
      default: s.required_features.insert(isa[i % 6]); s.minimum_threads = 1; break;
    }
    profiles.push_back({'p' + std::to_string(i), s,
                        {kKey, {{"algorithm.block", std::int64_t{16} * (1 + i % 64)}}}, i});
  }
  if (here.processor.family && here.processor.model && !here.processor.vendor.empty()) {
    CpuSelector s;
    s.vendor = here.processor.vendor;
    s.family = here.processor.family;
    s.models = {*here.processor.model};
    profiles.push_back({"this-machine", s, {kKey, {{"algorithm.block", std::int64_t{4096}}}}, 0});
  }
  Error e = registry.try_register_profiles(std::move(profiles));
  if (e.is_bad()) std::fprintf(stderr, "registration failed: %s\n", e.message().c_str());
  return e.is_good();
}

double ns(Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

bool same_result(const std::vector<float>& x, const std::vector<float>& y, const char* what) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (y[i] != 2.0f * x[i] + 1.0f) {
      std::fprintf(stderr, "%s: wrong result at %zu\n", what, i);
      return false;
    }
  }
  return true;
}

// The registry with its 1,000 profiles and this machine's descriptor, built
// once for every benchmark; registered is false when registration failed.
struct Fixture {
  KernelTuningRegistry registry;
  platform::CpuExecutionDescriptor here = platform::detect_execution_descriptor();
  bool registered = register_profiles(registry, here);
  TuningSessionOptions options() {
    TuningSessionOptions o;
    o.registry = &registry;
    o.execution = here;
    return o;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_SnapshotCapture(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.registered) return tunekit::bench::fail(state, "profile registration failed");
  for (auto _ : state) benchmark::DoNotOptimize(f.registry.snapshot());
}
BENCHMARK(BM_SnapshotCapture)->Unit(benchmark::kNanosecond);

void BM_Resolution(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.registered) return tunekit::bench::fail(state, "profile registration failed");
  auto snapshot = f.registry.snapshot();
  std::string winner;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    Resolution r = snapshot->resolve(kKey, f.here);
    if (winner.empty()) winner = r.profile_name.empty() ? "(portable defaults)" : r.profile_name;
    benchmark::DoNotOptimize(r);
  }
  const double resolution_ns = ns(Clock::now() - t0) / static_cast<double>(state.iterations());
  state.counters["profiles"] = static_cast<double>(snapshot->profiles(kKey).size());
  state.SetLabel("winner " + winner + (resolution_ns <= 5000.0 ? ", target <= 5000 ns: met" : ", target <= 5000 ns: MISSED"));
}
BENCHMARK(BM_Resolution)->Unit(benchmark::kNanosecond);

void BM_SessionConfigure(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.registered) return tunekit::bench::fail(state, "profile registration failed");
  const TuningSessionOptions options = f.options();
  for (auto _ : state) {
    ScaleTuning config = TuningSession::Create(options).configure(binding(), kKey);
    if (config.block <= 0) return tunekit::bench::fail(state, "configure gave a block <= 0");
    benchmark::DoNotOptimize(config);
  }
}
BENCHMARK(BM_SessionConfigure)->Unit(benchmark::kNanosecond);

// One kernel, configured at its first run, against the same function called
// directly with the same block size. Like with like: both sides read the same
// input and write the same output (separate output buffers sit at other
// offsets from the input, and 4 KiB aliasing between loads and stores then
// costs one side and not the other on some cores), and they alternate which
// goes first so that neither always runs on the caches the other left behind.
void BM_SteadyRun(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.registered) return tunekit::bench::fail(state, "profile registration failed");
  const char* reconfigure = std::getenv("TUNEKIT_BENCH_RECONFIGURE_EVERY_RUN");
  std::vector<float> x(1 << 14), y(x.size(), std::nanf(""));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 2001) - 1000) / 7.0f;
  ScaleKernel kernel(TuningSession::Create(f.options()), reconfigure && std::strcmp(reconfigure, "1") == 0);
  kernel.run(x, y);
  if (!same_result(x, y, "tuned kernel")) return tunekit::bench::fail(state, "the tuned kernel's first run is wrong");
  const AccessCounts after_first = f.registry.access_counts();
  const std::int64_t block = kernel.block();
  double tuned_ns = 0.0;
  double plain_ns = 0.0;
  bool tuned_first = true;
  for (auto _ : state) {
    for (int side = 0; side < 2; ++side) {
      const bool tuned = (side == 0) == tuned_first;
      const auto t0 = Clock::now();
      if (tuned) {
        kernel.run(x, y);
      } else {
        scale_blocked(x, y, block);  // the same work, no tuning in the call path
      }
      const auto t1 = Clock::now();
      if (tuned) {
        tuned_ns += ns(t1 - t0);
        state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
      } else {
        plain_ns += ns(t1 - t0);
      }
    }
    tuned_first = !tuned_first;
  }
  const AccessCounts after_steady = f.registry.access_counts();
  std::fill(y.begin(), y.end(), std::nanf(""));
  kernel.run(x, y);
  if (!same_result(x, y, "tuned kernel")) return tunekit::bench::fail(state, "the tuned kernel's result is wrong");
  std::fill(y.begin(), y.end(), std::nanf(""));
  scale_blocked(x, y, block);
  if (!same_result(x, y, "plain loop")) return tunekit::bench::fail(state, "the plain loop's result is wrong");

  const std::uint64_t touched = (after_steady.snapshots - after_first.snapshots) +
                                (after_steady.snapshot_lookups - after_first.snapshot_lookups) +
                                (after_steady.resolutions - after_first.resolutions);
  const double ratio = tuned_ns / plain_ns;
  state.counters["plain_ns"] = plain_ns / static_cast<double>(state.iterations());
  state.counters["ratio"] = ratio;
  state.counters["floats"] = static_cast<double>(x.size());
  state.counters["block"] = static_cast<double>(block);
  state.counters["registry_accesses"] = static_cast<double>(touched);
  state.SetLabel(ratio <= 1.02 ? "target <= 1.02: met" : "target <= 1.02: MISSED");
  if (touched != 0) tunekit::bench::fail(state, "FAIL: a steady-state run accessed the tuning registry");
}
BENCHMARK(BM_SteadyRun)->UseManualTime()->Unit(benchmark::kNanosecond);

}  // namespace

int main(int argc, char** argv) { return tunekit::bench::run_benchmarks(argc, argv); }
