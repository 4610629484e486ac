// bench_kernel_tuning -n N: the one-time cost of tuning (snapshot capture and
// resolution of one key among 1,000 registered profiles, timed separately)
// and the steady-state cost of a tuned kernel's run against the same loop
// without tuning. Exits non-zero when a steady run touches the registry.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tunekit/measure/statistics.hpp"
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
  explicit ScaleKernel(TuningSession session) : session_(std::move(session)) {}
  void run(const std::vector<float>& x, std::vector<float>& y) {
    if (!configured_) {
      config_ = session_.configure(binding(), kKey);
      configured_ = true;
    }
    scale_blocked(x, y, config_.block);
  }
  std::int64_t block() const { return config_.block; }

 private:
  TuningSession session_;
  ScaleTuning config_;
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

}  // namespace

int main(int argc, char** argv) {
  long iterations = 10000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0) iterations = std::strtol(argv[i + 1], nullptr, 10);
  }
  if (iterations < 1) {
    std::fputs("usage: bench_kernel_tuning [-n N]   (N >= 1)\n", stderr);
    return 2;
  }

  KernelTuningRegistry registry;
  const platform::CpuExecutionDescriptor here = platform::detect_execution_descriptor();
  if (!register_profiles(registry, here)) return 2;
  TuningSessionOptions options;
  options.registry = &registry;
  options.execution = here;

  // Cold path: capture and resolution timed separately, many times.
  std::vector<double> capture_ns, resolve_ns, session_ns;
  std::string winner;
  for (long i = 0; i < iterations; ++i) {
    const auto t0 = Clock::now();
    auto snapshot = registry.snapshot();
    const auto t1 = Clock::now();
    Resolution r = snapshot->resolve(kKey, here);
    const auto t2 = Clock::now();
    capture_ns.push_back(ns(t1 - t0));
    resolve_ns.push_back(ns(t2 - t1));
    if (i == 0) winner = r.profile_name.empty() ? "(portable defaults)" : r.profile_name;
  }
  for (long i = 0; i < std::min<long>(iterations, 2000); ++i) {
    const auto t0 = Clock::now();
    ScaleTuning config = TuningSession::Create(options).configure(binding(), kKey);
    session_ns.push_back(ns(Clock::now() - t0));
    if (config.block <= 0) return 3;
  }

  // Steady path: one kernel, configured at its first run, against the same
  // function called directly with the same block size. Like with like: both
  // sides read the same input and write the same output (separate output
  // buffers sit at other offsets from the input, and 4 KiB aliasing between
  // loads and stores then costs one side and not the other on some cores),
  // and they alternate which goes first so that neither always runs on the
  // caches the other left behind.
  std::vector<float> x(1 << 14), y(x.size(), std::nanf(""));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 2001) - 1000) / 7.0f;
  ScaleKernel kernel(TuningSession::Create(options));
  kernel.run(x, y);
  if (!same_result(x, y, "tuned kernel")) return 1;
  const AccessCounts after_first = registry.access_counts();
  const std::int64_t block = kernel.block();
  std::vector<double> steady_ns, plain_ns;
  steady_ns.reserve(static_cast<std::size_t>(iterations));
  plain_ns.reserve(static_cast<std::size_t>(iterations));
  for (long i = 0; i < iterations; ++i) {
    for (int side = 0; side < 2; ++side) {
      const bool tuned = (side == 0) == (i % 2 == 0);
      const auto t0 = Clock::now();
      if (tuned) {
        kernel.run(x, y);
      } else {
        scale_blocked(x, y, block);  // the same work, no tuning in the call path
      }
      const auto t1 = Clock::now();
      (tuned ? steady_ns : plain_ns).push_back(ns(t1 - t0));
    }
  }
  const AccessCounts after_steady = registry.access_counts();
  std::fill(y.begin(), y.end(), std::nanf(""));
  kernel.run(x, y);
  if (!same_result(x, y, "tuned kernel")) return 1;
  std::fill(y.begin(), y.end(), std::nanf(""));
  scale_blocked(x, y, block);
  if (!same_result(x, y, "plain loop")) return 1;

  const double resolution_median = measure::median(resolve_ns);
  std::printf("bench_kernel_tuning: %ld iterations, 1 key with %zu registered profiles, winner %s\n", iterations,
              registry.snapshot()->profiles(kKey).size(), winner.c_str());
  std::printf("cold snapshot capture median:   %10.1f ns\n", measure::median(capture_ns));
  std::printf("cold resolution median:         %10.1f ns   (target <= 5000 ns: %s)\n", resolution_median,
              resolution_median <= 5000.0 ? "met" : "MISSED");
  std::printf("session create+configure median:%10.1f ns\n", measure::median(session_ns));
  std::printf("steady run median:              %10.1f ns   (%zu floats, block %lld)\n", measure::median(steady_ns),
              x.size(), static_cast<long long>(kernel.block()));
  const double ratio = measure::median(steady_ns) / measure::median(plain_ns);
  std::printf("same loop called directly median:%10.1f ns   ratio tuned/plain %.3f   (target <= 1.02: %s)\n",
              measure::median(plain_ns), ratio, ratio <= 1.02 ? "met" : "MISSED");
  const std::uint64_t touched = (after_steady.snapshots - after_first.snapshots) +
                                (after_steady.snapshot_lookups - after_first.snapshot_lookups) +
                                (after_steady.resolutions - after_first.resolutions);
  std::printf("registry accesses during %ld steady runs: %llu\n", iterations, static_cast<unsigned long long>(touched));
  if (touched != 0) {
    std::fputs("FAIL: a steady-state run accessed the tuning registry\n", stderr);
    return 1;
  }
  return 0;
}
