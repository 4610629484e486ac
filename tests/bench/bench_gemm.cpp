// tunekit_cpu's Gemm against OpenBLAS and BLIS, measured in the same run:
// FLOAT and DOUBLE, 1 and 2 threads, on the shape families square 256, 1024,
// 2048; skinny M (8 x 4096 x 4096); tall skinny N (4096 x 64 x 256); large K
// (256 x 256 x 8192) and A transposed at 1024. Each benchmark times the three
// libraries the same way and reports GFLOP/s of each (the best batch of
// five rounds in which every library runs one batch in turn, a batch's
// figure its median call) and ratio = tunekit / the faster of OpenBLAS and BLIS; the geometric
// mean of the ratios is printed at the end. tunekit runs the Gemm of a
// tuning session created for each thread count (GemmKernel::for_session:
// tunekit_cpu's committed profiles and the calibration cache's entries for
// that count, --tk_cache=<file> or the default cache path); where that is
// not the portable default, the default is timed too
// (tunekit_default_GFLOPs, tuned_vs_default). --tk_min_time=<s> sets the
// length of one timed batch (default 0.2 s), --tk_rounds=<n> the rounds (default 5); --tk_path=packed|streamed
// forces tunekit's path (default: the one its configuration chooses). Other benchmark flags are
// Google Benchmark's (--benchmark_filter=square_256).
#include <benchmark/benchmark.h>
// OpenBLAS's cblas.h first: blis.h carries a cblas.h of its own behind the
// same include guard, which is then skipped (only bli_* is used from BLIS).
#include <cblas.h>
// clang-format off
#include <blis.h>
// clang-format on
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/measure/statistics.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"
#include "tunekit/tuning/tuning_session.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"

namespace {

using tunekit::cpu::Transpose;

double g_batch_seconds = 0.2;
int g_rounds = 5;
tunekit::cpu::GemmPath g_path = tunekit::cpu::GemmPath::AUTO;
constexpr int kThreadCounts[] = {1, 2};

// The Gemm a session for one thread count configures for one type, and
// whether its configuration is the portable default.
struct Tuned {
  tunekit::cpu::GemmKernel kernel;
  bool is_default = true;
};
std::map<std::pair<tunekit::DataType, int>, Tuned> g_tuned;  // (type, threads) -> kernel

template <typename T>
const Tuned& tuned(int threads) {
  return g_tuned.at({sizeof(T) == 4 ? tunekit::DataType::FLOAT : tunekit::DataType::DOUBLE, threads});
}
std::map<std::string, double> g_ratios;  // benchmark name -> ratio

struct GemmShape {
  const char* name;
  std::int64_t m, n, k;
  bool trans_a;
};

constexpr GemmShape kShapes[] = {
    {"square_256", 256, 256, 256, false},     {"square_1024", 1024, 1024, 1024, false},
    {"square_2048", 2048, 2048, 2048, false}, {"skinny_m_8x4096x4096", 8, 4096, 4096, false},
    {"tall_4096x64x256", 4096, 64, 256, false}, {"large_k_256x256x8192", 256, 256, 8192, false},
    {"trans_a_1024", 1024, 1024, 1024, true},
};

template <typename T>
struct Operands {
  std::vector<T> a, b, c;
  std::int64_t lda, ldb, ldc;
};

template <typename T>
Operands<T> make(const GemmShape& s) {
  std::mt19937 engine(42);
  std::normal_distribution<double> normal;
  Operands<T> x;
  x.lda = s.trans_a ? s.m : s.k;
  x.ldb = s.n;
  x.ldc = s.n;
  x.a.resize(static_cast<std::size_t>(s.m * s.k));
  x.b.resize(static_cast<std::size_t>(s.k * s.n));
  x.c.assign(static_cast<std::size_t>(s.m * s.n), T(0));
  for (T& v : x.a) v = static_cast<T>(normal(engine));
  for (T& v : x.b) v = static_cast<T>(normal(engine));
  return x;
}

template <typename T>
void run_tunekit(const GemmShape& s, Operands<T>& x, const tunekit::cpu::GemmKernel& kernel) {
  tunekit::Error e = kernel.run(s.trans_a ? Transpose::YES : Transpose::NO, Transpose::NO, s.m, s.n, s.k, T(1),
                                x.a.data(), x.lda, x.b.data(), x.ldb, T(0), x.c.data(), x.ldc, g_path);
  if (e.is_bad()) std::fprintf(stderr, "tunekit Gemm: %s\n", e.message().c_str());
}

template <typename T>
void run_openblas(const GemmShape& s, Operands<T>& x) {
  const auto ta = s.trans_a ? CblasTrans : CblasNoTrans;
  const auto m = static_cast<blasint>(s.m), n = static_cast<blasint>(s.n), k = static_cast<blasint>(s.k);
  if constexpr (sizeof(T) == 4) {
    cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, 1.0f, x.a.data(), static_cast<blasint>(x.lda), x.b.data(),
                static_cast<blasint>(x.ldb), 0.0f, x.c.data(), static_cast<blasint>(x.ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, 1.0, x.a.data(), static_cast<blasint>(x.lda), x.b.data(),
                static_cast<blasint>(x.ldb), 0.0, x.c.data(), static_cast<blasint>(x.ldc));
  }
}

template <typename T>
void run_blis(const GemmShape& s, Operands<T>& x) {
  T one = 1, zero = 0;
  const trans_t ta = s.trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
  // Row-major: row stride ld, column stride 1 (of the stored matrix).
  if constexpr (sizeof(T) == 4) {
    bli_sgemm(ta, BLIS_NO_TRANSPOSE, s.m, s.n, s.k, &one, x.a.data(), x.lda, 1, x.b.data(), x.ldb, 1, &zero,
              x.c.data(), x.ldc, 1);
  } else {
    bli_dgemm(ta, BLIS_NO_TRANSPOSE, s.m, s.n, s.k, &one, x.a.data(), x.lda, 1, x.b.data(), x.ldb, 1, &zero,
              x.c.data(), x.ldc, 1);
  }
}

// Seconds of the median call of one batch: a warm-up call, then calls for
// at least g_batch_seconds, each timed alone (the median, not the mean: one
// call that a neighbour on the machine stalls must not decide the batch).
template <typename F>
double batch_seconds_per_call(F&& call) {
  call();
  std::vector<double> seconds;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  do {
    call();
    const auto now = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(now - last).count());
    last = now;
  } while (std::chrono::duration<double>(last - start).count() < g_batch_seconds);
  return tunekit::measure::median(seconds);
}

// One library (or configuration) in the comparison: `enter` and `leave` set
// its thread count around its turn.
struct Contender {
  std::function<void()> call;
  std::function<void()> enter = [] {};
  std::function<void()> leave = [] {};
  double best_seconds = 1e300;
};

// g_rounds rounds in which every contender runs one batch in turn, each
// after a pause (idle workers of one library spin for a while after its last
// call and would take cores from the next); the best batch of each counts.
// Rounds, not batches in a row each, so that a slow phase of a shared
// machine (or the clock ramping up) does not fall on whichever runs first.
void run_rounds(std::vector<Contender>& contenders) {
  for (int round = 0; round < g_rounds; ++round) {
    for (Contender& c : contenders) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      c.enter();
      c.best_seconds = std::min(c.best_seconds, batch_seconds_per_call(c.call));
      c.leave();
    }
  }
}

template <typename T>
void bench(benchmark::State& state, const GemmShape& s, int threads, const std::string& name) {
  Operands<T> x = make<T>(s);
  const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  const tunekit::cpu::GemmKernel& kernel = tuned<T>(threads).kernel;
  const bool tuned_is_default = tuned<T>(threads).is_default;
  const tunekit::cpu::GemmKernel portable({}, {}, kernel.threads());
  // OpenBLAS (pthreads, not the OpenMP pool) gets its threads only for its turn.
  std::vector<Contender> contenders = {
      {[&] { run_tunekit(s, x, kernel); }},
      {[&] { run_blis(s, x); }, [&] { bli_thread_set_num_threads(threads); }},
      {[&] { run_openblas(s, x); }, [&] { openblas_set_num_threads(threads); }, [] { openblas_set_num_threads(1); }}};
  if (!tuned_is_default) contenders.push_back({[&] { run_tunekit(s, x, portable); }});
  run_rounds(contenders);
  const double tunekit = flops / contenders[0].best_seconds * 1e-9;
  const double blis = flops / contenders[1].best_seconds * 1e-9;
  const double openblas = flops / contenders[2].best_seconds * 1e-9;
  const double tunekit_default = tuned_is_default ? tunekit : flops / contenders[3].best_seconds * 1e-9;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  for (auto _ : state) {
    run_tunekit(s, x, kernel);
    benchmark::DoNotOptimize(x.c.data());
  }
  const double ratio = tunekit / std::max(openblas, blis);
  state.counters["tunekit_GFLOPs"] = tunekit;
  state.counters["tunekit_default_GFLOPs"] = tunekit_default;
  state.counters["tuned_vs_default"] = tunekit / tunekit_default;
  state.counters["openblas_GFLOPs"] = openblas;
  state.counters["blis_GFLOPs"] = blis;
  state.counters["ratio"] = ratio;
  g_ratios[name] = ratio;
}

// Registers tunekit_cpu (schemas, committed profiles), loads the calibration
// cache (read only; a missing file is fine; the entries of every thread
// count) and configures the Gemm of both types in a session per thread
// count, printing where each configuration came from.
tunekit::Error resolve_tuned_configurations(const std::optional<std::string>& cache_path) {
  namespace tuning = tunekit::tuning;
  tunekit::cpu::register_tunekit_cpu();
  tuning::KernelTuningCacheOptions options;
  options.read_only = true;
  if (cache_path) options.path = *cache_path;
  const tuning::KernelTuningCacheLoadReport loaded = tuning::LoadKernelTuningCache({}, options);
  std::printf("calibration cache: %s\n", loaded.summary().c_str());
  for (int threads : kThreadCounts) {
    tuning::TuningSessionOptions session_options;
    session_options.threads = static_cast<std::uint32_t>(threads);
    auto session = tuning::TuningSession::create(std::move(session_options));
    if (!session.ok()) return session.error();
    for (tunekit::DataType type : {tunekit::DataType::FLOAT, tunekit::DataType::DOUBLE}) {
      auto kernel = tunekit::cpu::GemmKernel::for_session(*session, type);
      if (!kernel.ok()) return kernel.error();
      const tuning::Resolution resolution = session->resolve(tunekit::cpu::gemm_key(type));
      g_tuned.insert_or_assign({type, threads},
                               Tuned{*kernel, resolution.source == tuning::ResolutionSource::PORTABLE_DEFAULT});
      std::printf("tunekit %s, threads %d (session: %d): %s%s%s\n", std::string(tunekit::core::to_string(type)).c_str(),
                  threads, kernel->threads(), std::string(tuning::to_string(resolution.source)).c_str(),
                  resolution.profile_name.empty() ? "" : " ", resolution.profile_name.c_str());
    }
  }
  return tunekit::Error::ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::string> cache_path;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--tk_cache=", 11) == 0) {
      cache_path = argv[i] + 11;
    } else if (std::strncmp(argv[i], "--tk_min_time=", 14) == 0) {
      g_batch_seconds = std::atof(argv[i] + 14);
    } else if (std::strncmp(argv[i], "--tk_rounds=", 12) == 0) {
      g_rounds = std::max(1, std::atoi(argv[i] + 12));
    } else if (std::strcmp(argv[i], "--tk_path=packed") == 0) {
      g_path = tunekit::cpu::GemmPath::PACKED;
    } else if (std::strcmp(argv[i], "--tk_path=streamed") == 0) {
      g_path = tunekit::cpu::GemmPath::STREAMED_B;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  const tunekit::platform::CpuDescriptor cpu = tunekit::platform::detect_cpu_descriptor();
  std::printf("machine: %s (%s), tunekit_cpu path %s\n", cpu.model_name.c_str(), tunekit::platform::identity_string(cpu).c_str(),
              std::string(tunekit::cpu::to_string(tunekit::cpu::active_isa())).c_str());
  // OpenBLAS picks its kernels from a table of processors it knows; on a
  // newer one it falls back to an old core (Prescott on Emerald Rapids with
  // Debian 12's 0.3.21). OPENBLAS_CORETYPE=SkylakeX (or Zen, Haswell) before
  // the run gives it its real kernels; the core it uses is printed here.
  std::printf("OpenBLAS core: %s (%s)\n", openblas_get_corename(), openblas_get_config());
  if (tunekit::Error e = resolve_tuned_configurations(cache_path); e.is_bad()) {
    std::fprintf(stderr, "bench_gemm: %s\n", e.message().c_str());
    return 1;
  }
  for (const GemmShape& s : kShapes) {
    for (int threads : kThreadCounts) {
      for (bool is_float : {true, false}) {
        const std::string name = std::string("gemm/") + (is_float ? "float/" : "double/") + s.name +
                                 "/threads:" + std::to_string(threads);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [&s, threads, is_float, name](benchmark::State& state) {
          if (is_float) {
            bench<float>(state, s, threads, name);
          } else {
            bench<double>(state, s, threads, name);
          }
        });
        b->Iterations(2)->Unit(benchmark::kMillisecond);
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!g_ratios.empty()) {
    double log_sum = 0;
    for (const auto& [name, ratio] : g_ratios) log_sum += std::log(ratio);
    std::printf("geometric mean of tunekit / best(OpenBLAS, BLIS) over %zu benchmarks: %.3f\n", g_ratios.size(),
                std::exp(log_sum / static_cast<double>(g_ratios.size())));
  }
  return 0;
}
