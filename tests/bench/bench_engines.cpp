// What choosing between CPU engines buys, measured in one run: for every
// shape set of the sample graphs (examples/graphs), each engine of tunekit,
// OpenBLAS, BLIS and oneDNN at its default knobs and on one thread; the winner and
// its time, the heuristic's first choice over the winner, and the best single
// library (the provider best over all cases, by geometric mean) over the
// winner. The memory-bound cases (normalizations, softmax, reductions):
// tunekit's best against oneDNN's, timed again interleaved, and both against
// a same-run copy of the graph's largest tensor. Convolutions: tunekit's engines against oneDNN's
// direct algorithm. For both, each side's kPairCandidates fastest are timed again, interleaved among themselves,
// and each side's fastest of those timed again with the other's, interleaved. Nearest-shape selection on shapes between the tuned ones
// (report_nearest_shapes). Then tunekit's matmul against the faster of OpenBLAS and BLIS on
// squares of 1024 and 2048 (the four libraries in turn, interleaved), and the wall time of autotune() over the sum of
// the executions it timed.
//
//   bench_engines [--quick] [--min-time SECONDS]
//
// --quick keeps shape sets of at most 2^28 multiply-adds (and every
// layernorm) and the 1024
// square, with short timings: the ctest entry, which checks that it runs.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "tunekit/engines/blis_engines.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/engines/libxsmm_engines.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/onednn_engines.hpp"
#include "tunekit/engines/openblas_engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "random_graph_buffers.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/override_index.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/graph/override_query.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;
using Clock = std::chrono::steady_clock;

struct Options {
  bool quick = false;
  double min_time = 0.3;
};

// Builds one graph; the same function makes every copy a candidate needs.
using GraphMaker = std::function<Graph()>;

using Buffers = tunekit::bench::RandomGraphBuffers;

struct Candidate {
  std::int64_t engine;
  std::map<std::string, KnobValue> knobs;
  std::string provider;
  std::string plan;
  double ms = HUGE_VAL;  // median
};

class Bench {
 public:
  explicit Bench(Options options) : options_(options) {
    // The committed processor profiles, as `tunekit tune` registers them: the
    // Gemm of tunekit's engines runs this processor's profile if it has one.
    cpu::register_tunekit_cpu();
    auto registry = std::make_shared<EngineRegistry>();
    if (engines::register_cpu_engines(*registry).is_bad()) std::abort();
    registry_ = registry;
    handle_ = std::move(Handle::create(device_, registry_)).value();
  }

  Handle* handle() { return handle_.get(); }
  const EngineRegistry& registry() const { return *registry_; }

  // The median time of a plan in ms (NaN when it cannot run), repeated for
  // at least min_time and 3 runs after a warm-up.
  double time_plan(Graph& graph, Buffers& buffers) {
    std::vector<std::byte> workspace(static_cast<std::size_t>(graph.get_workspace_size()) + 64);
    if (graph.execute(handle(), buffers.pack, workspace.data()).is_bad()) return std::nan("");
    std::vector<double> samples;
    const auto start = Clock::now();
    while (samples.size() < 3 || std::chrono::duration<double>(Clock::now() - start).count() < options_.min_time) {
      const auto t0 = Clock::now();
      (void)graph.execute(handle(), buffers.pack, workspace.data());
      samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (samples.size() >= 1000) break;
    }
    std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
    return samples[samples.size() / 2];
  }

  // The median times of several plans on the same buffers in ms (NaN for one
  // that cannot run), executed in turn, one execution each per round, so
  // that a slow phase of a shared machine falls on all of them: at least 5
  // rounds and min_time per plan after a warm-up.
  std::vector<double> time_plans_interleaved(std::vector<Graph>& graphs, Buffers& buffers) {
    std::int64_t most = 0;
    for (Graph& g : graphs) most = std::max(most, g.get_workspace_size());
    std::vector<std::byte> workspace(static_cast<std::size_t>(most) + 64);
    std::vector<bool> runs(graphs.size());
    for (std::size_t i = 0; i < graphs.size(); ++i) {
      runs[i] = graphs[i].execute(handle(), buffers.pack, workspace.data()).is_good();
    }
    std::vector<std::vector<double>> samples(graphs.size());
    const auto start = Clock::now();
    const double total = options_.min_time * static_cast<double>(graphs.size());
    for (int round = 0; round < 1000; ++round) {
      if (round >= 5 && std::chrono::duration<double>(Clock::now() - start).count() >= total) break;
      for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (!runs[i]) continue;
        const auto t0 = Clock::now();
        (void)graphs[i].execute(handle(), buffers.pack, workspace.data());
        samples[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    }
    std::vector<double> medians;
    for (std::vector<double>& s : samples) {
      if (s.empty()) {
        medians.push_back(std::nan(""));
        continue;
      }
      std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
      medians.push_back(s[s.size() / 2]);
    }
    return medians;
  }

  // The values of an engine's `configuration` knob other than its default
  // (BLIS's configurations besides the detected one).
  static std::vector<std::string> other_configurations(const graph::EngineDescriptor& descriptor) {
    std::vector<std::string> names;
    const graph::Knob* knob = descriptor.find_knob("configuration");
    if (knob == nullptr) return names;
    for (const KnobValue& value : knob->allowed_values) {
      if (value != knob->default_value && value.as_string()) names.push_back(*value.as_string());
    }
    return names;
  }

  // Times each non-reference engine that applies, at its defaults and on one
  // thread; oneDNN's convolution also with its direct algorithm (the
  // reference of tunekit's convolutions) and its Winograd one.
  std::vector<Candidate> time_candidates(const GraphMaker& make, Buffers& buffers) {
    std::vector<Candidate> candidates;
    for (const auto& engine : registry_->engines()) {
      const std::int64_t id = engine->descriptor().id;
      const std::string provider = registry_->origin(id)->provider;
      if (engine->descriptor().reference) continue;
      std::vector<std::map<std::string, KnobValue>> knob_sets{{}, {{"threads", std::int64_t{1}}}};
      if (id == engines::kConvOnednnEngine) {
        knob_sets.push_back({{"algorithm", std::string("direct")}});
        knob_sets.push_back({{"algorithm", std::string("direct")}, {"threads", std::int64_t{1}}});
        knob_sets.push_back({{"algorithm", std::string("winograd")}});
        knob_sets.push_back({{"algorithm", std::string("winograd")}, {"threads", std::int64_t{1}}});
      }
      // BLIS in each configuration it holds and this processor runs: the one
      // it detects may be its generic one (BLIS 0.9 on a Zen 5).
      for (const std::string& configuration : other_configurations(engine->descriptor())) {
        knob_sets.push_back({{"configuration", configuration}});
        knob_sets.push_back({{"configuration", configuration}, {"threads", std::int64_t{1}}});
      }
      for (const auto& knobs : knob_sets) {
        Graph graph = make();
        if (graph.create_execution_plan_ext(id, knobs).is_bad() || graph.build_plans(BuildPlanPolicy::ALL).is_bad()) {
          continue;
        }
        Candidate c{id, knobs, provider, "", 0};
        (void)graph.get_plan_name_at_index(0, c.plan);
        c.ms = time_plan(graph, buffers);
        if (std::isfinite(c.ms)) candidates.push_back(c);
      }
    }
    return candidates;
  }

  // The heuristic's first choice (no override file) and its time.
  std::pair<std::string, double> time_heuristic(const GraphMaker& make, Buffers& buffers) {
    Graph graph = make();
    if (graph.create_execution_plans().is_bad() || graph.check_support().is_bad() ||
        graph.build_plans(BuildPlanPolicy::HEURISTICS_CHOICE).is_bad()) {
      return {"none", std::nan("")};
    }
    std::string name;
    (void)graph.get_plan_name_at_index(0, name);
    return {name, time_plan(graph, buffers)};
  }

 private:
  Options options_;
  platform::CpuDevice device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<Handle> handle_;
};

// Candidates of each side timed again for the tunekit-vs-oneDNN pairs.
constexpr std::size_t kPairCandidates = 3;

struct CaseResult {
  std::string name;
  double copy_ms = 0;  // memory-bound cases: a copy of the graph's largest tensor
  std::vector<Candidate> candidates;
  std::string heuristic;
  double heuristic_ms = 0;
  bool convolution = false;
  const Candidate& winner() const {
    return *std::min_element(candidates.begin(), candidates.end(),
                             [](const Candidate& a, const Candidate& b) { return a.ms < b.ms; });
  }
  double best_of(const std::string& provider) const {
    double best = HUGE_VAL;
    for (const Candidate& c : candidates) {
      if (c.provider == provider) best = std::min(best, c.ms);
    }
    return best;
  }
  // The `count` fastest candidates that `pick` accepts, fastest first.
  template <typename Pick>
  std::vector<const Candidate*> fastest(Pick pick, std::size_t count) const {
    std::vector<const Candidate*> picked;
    for (const Candidate& c : candidates) {
      if (pick(c)) picked.push_back(&c);
    }
    std::sort(picked.begin(), picked.end(), [](const Candidate* a, const Candidate* b) { return a->ms < b->ms; });
    if (picked.size() > count) picked.resize(count);
    return picked;
  }
  static bool onednn_direct(const Candidate& c) {
    auto algorithm = c.knobs.find("algorithm");
    return c.engine == engines::kConvOnednnEngine && algorithm != c.knobs.end() && algorithm->second.as_string() &&
           *algorithm->second.as_string() == "direct";
  }
  // tunekit's fastest and oneDNN's fastest (for a convolution: direct) of
  // their candidates timed again, interleaved: their ms in that order, NaN
  // when either is missing; only for convolutions and the memory-bound cases.
  std::string tunekit_plan;
  double tunekit_vs_onednn[2] = {std::nan(""), std::nan("")};
};

Graph square_matmul(Handle* handle, std::int64_t n) {
  Graph graph;
  Tensor a = graph.tensor(TensorAttributes().set_name("A").set_uid(1).set_dim({n, n}));
  Tensor b = graph.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({n, n}));
  graph.matmul(a, b)->set_output(true).set_uid(3).set_name("C");
  (void)graph.validate();
  (void)graph.build_operation_graph(handle);
  return graph;
}

double multiply_adds(const OperationGraph& graph) {
  if (Result<engines::ConvPattern> conv = engines::match_conv(graph); conv.ok()) return conv->multiply_adds();
  if (Result<engines::MatmulPattern> mm = engines::match_matmul(graph); mm.ok()) {
    return static_cast<double>(mm->batch) * static_cast<double>(mm->m) * static_cast<double>(mm->n) *
           static_cast<double>(mm->k);
  }
  return 0;  // neither a matmul nor a convolution: memory-bound, always kept
}

// The median time in ms of copying `bytes` from one buffer into another on
// `threads` threads (each its own slice): the same-run reference of the
// memory-bound cases.
double time_copy(std::size_t bytes, int threads, double min_time) {
  // The destination starts 17 cache lines past a page boundary's offset of
  // the source: two large allocations are often both page-aligned, and a
  // store 4 KiB apart from a load stalls (4K aliasing), which no engine's
  // buffers of a graph need to suffer.
  constexpr std::size_t kSkew = 17 * 64;
  std::vector<char> from(bytes, 1), to_storage(bytes + kSkew, 0);
  char* to = to_storage.data() + kSkew;
  // The engines' own runtime (OpenMP), whose team is already running.
  auto copy = [&] {
    const std::size_t slice = (bytes + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::size_t begin = std::min(bytes, slice * static_cast<std::size_t>(t));
      const std::size_t end = std::min(bytes, begin + slice);
      std::memcpy(to + begin, from.data() + begin, end - begin);
    }
  };
  copy();
  std::vector<double> samples;
  const auto start = Clock::now();
  while (samples.size() < 3 || std::chrono::duration<double>(Clock::now() - start).count() < min_time) {
    const auto t0 = Clock::now();
    copy();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (samples.size() >= 1000) break;
  }
  std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
  return samples[samples.size() / 2];
}

// Nearest-shape selection on shapes nobody tuned: for each sample graph
// whose shape sets differ in dims only (no explicit strides), the winners of
// its shape sets (timed above) go into an override file, and each shape
// between two consecutive shape sets (the geometric mean of every dim that
// differs) is timed on every candidate (the true best), on the engine the
// selection policy puts first through the nearest tuned shape, and on the
// heuristic's first choice without overrides.
void report_nearest_shapes(Bench& bench, const std::vector<std::filesystem::path>& files,
                           const std::vector<CaseResult>& cases, const Options& options) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / fmt::format("tunekit-bench-{}", getpid());
  std::filesystem::create_directories(folder);
  const platform::CpuDevice device;
  std::printf("\nnearest-shape selection: shapes between the tuned ones (ratios over the true best's time; distance:"
              " of the tuned shape that stood in, none beyond the limit of %.3g)\n",
              nearest_shape_limit_from_environment());
  std::printf("%-52s %-30s %9s %8s %-30s %7s %-26s %7s\n", "graph [held-out shape]", "true best", "ms", "distance",
              "selected", "/best", "heuristic's first choice", "/best");
  double log_selected = 0, log_heuristic = 0;
  int count = 0;
  for (const auto& path : files) {
    GraphFile file = read_graph_file(path).value();
    if (file.shape_sets.size() < 2) continue;
    bool strided = false;
    for (const GraphShapeSet& set : file.shape_sets) strided = strided || !set.strides.empty();
    if (strided) continue;
    const std::filesystem::path overrides = folder / (file.name + ".json");
    std::filesystem::remove(overrides);
    std::size_t tuned = 0;
    for (std::size_t set = 0; set < file.shape_sets.size(); ++set) {
      const std::string name = file.name + " [" + file.shape_sets[set].name + "]";
      auto found = std::find_if(cases.begin(), cases.end(), [&](const CaseResult& c) { return c.name == name; });
      if (found == cases.end()) continue;
      const Candidate& w = found->winner();
      Graph graph = make_graph(file, set).value();
      (void)graph.validate();
      (void)graph.build_operation_graph(bench.handle());
      AutotuneResult result;
      result.engine_id = w.engine;
      result.engine_name = bench.registry().find(w.engine)->descriptor().name;
      for (const auto& [knob, value] : w.knobs) result.knob_settings.push_back({knob, value});
      result.min_time_ms = result.avg_time_ms = w.ms;
      result.succeeded = true;
      result.rank = 0;
      if (write_autotune_override(graph.operation_graph(), result, {device, bench.registry()}, {overrides}).ok()) ++tuned;
    }
    if (tuned < 2) continue;
    const OverrideIndex index({read_override_file(overrides).value()});
    OverrideLookupContext context;
    context.registry = &bench.registry();
    context.nearest_limit = nearest_shape_limit_from_environment();
    for (std::size_t set = 0; set + 1 < file.shape_sets.size(); ++set) {
      GraphShapeSet between = file.shape_sets[set];
      const GraphShapeSet& next = file.shape_sets[set + 1];
      between.name = file.shape_sets[set].name + ".." + next.name;
      for (auto& [tensor, dims] : between.dims) {
        const auto other = next.dims.find(tensor);
        if (other == next.dims.end() || other->second.size() != dims.size()) continue;
        for (std::size_t d = 0; d < dims.size(); ++d) {
          dims[d] = std::llround(std::sqrt(static_cast<double>(dims[d]) * static_cast<double>(other->second[d])));
        }
      }
      GraphFile held_out = file;
      held_out.shape_sets = {between};
      const GraphMaker make = [&] {
        Graph graph = make_graph(held_out, 0).value();
        (void)graph.validate();
        (void)graph.build_operation_graph(bench.handle());
        return graph;
      };
      Graph probe = make();
      if (options.quick && multiply_adds(probe.operation_graph()) > double(1 << 28)) continue;
      Buffers buffers(probe.operation_graph());
      std::vector<Candidate> all = bench.time_candidates(make, buffers);
      if (all.empty()) continue;
      const Candidate& best = *std::min_element(all.begin(), all.end(),
                                                [](const Candidate& a, const Candidate& b) { return a.ms < b.ms; });
      unsetenv(graph::kOverridePathVariable);
      auto [heuristic, heuristic_ms] = bench.time_heuristic(make, buffers);
      setenv(graph::kOverridePathVariable, overrides.c_str(), 1);
      auto [selected, selected_ms] = bench.time_heuristic(make, buffers);
      unsetenv(graph::kOverridePathVariable);
      // The same plan as a candidate: its time, so that noise between two
      // timings of one plan does not show as a ratio.
      for (const Candidate& c : all) {
        if (c.plan == heuristic) heuristic_ms = c.ms;
        if (c.plan == selected) selected_ms = c.ms;
      }
      // How far the tuned shape that stood in is (the policy's own lookup).
      std::string distance = "none";
      if (auto match = index.lookup(make_override_query(probe.operation_graph()).value(), context)) {
        if (match->nearest_distance) distance = fmt::format("{:.2f}", *match->nearest_distance);
      }
      std::printf("%-52s %-30s %9.4f %8s %-30s %7.3f %-26s %7.3f\n", (file.name + " [" + between.name + "]").c_str(),
                  best.plan.c_str(), best.ms, distance.c_str(), selected.c_str(), selected_ms / best.ms,
                  heuristic.c_str(), heuristic_ms / best.ms);
      log_selected += std::log(selected_ms / best.ms);
      log_heuristic += std::log(heuristic_ms / best.ms);
      ++count;
    }
  }
  if (count > 0) {
    std::printf("geometric mean over %d held-out shapes: selected/best %.3f, heuristic/best %.3f\n", count,
                std::exp(log_selected / count), std::exp(log_heuristic / count));
  }
  std::filesystem::remove_all(folder);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      options.quick = true;
      options.min_time = 0.01;
    } else if (std::strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
      options.min_time = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_engines [--quick] [--min-time SECONDS]\n");
      return 2;
    }
  }
  const platform::CpuDescriptor cpu = platform::detect_cpu_descriptor();
  const platform::CpuDevice device;
  std::printf("machine: %s (%s), %u effective threads\n", cpu.model_name.c_str(), cpu.microarchitecture.c_str(),
              device.execution().effective_threads);
  std::printf("libraries: OpenBLAS %s (%s kernels), BLIS %s (configuration %s), oneDNN %s (%s), libxsmm %s (%s)\n\n",
              engines::openblas_version().c_str(), engines::openblas_core_name().c_str(),
              engines::blis_version().c_str(), engines::blis_configuration().c_str(),
              engines::onednn_version().c_str(), engines::onednn_isa().c_str(), engines::libxsmm_version().c_str(),
              engines::libxsmm_target().c_str());

  Bench bench(options);
  std::vector<CaseResult> cases;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs")) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const GraphFile file = read_graph_file(path).value();
    for (std::size_t set = 0; set < file.shape_sets.size(); ++set) {
      const GraphMaker make = [&, set] {
        Graph graph = make_graph(file, set).value();
        (void)graph.validate();
        (void)graph.build_operation_graph(bench.handle());
        return graph;
      };
      Graph probe = make();
      if (options.quick && multiply_adds(probe.operation_graph()) > double(1 << 28)) continue;
      Buffers buffers(probe.operation_graph());
      CaseResult result;
      result.name = file.name + " [" + file.shape_sets[set].name + "]";
      result.convolution = engines::match_conv(probe.operation_graph()).ok();
      result.candidates = bench.time_candidates(make, buffers);
      if (result.candidates.empty()) continue;
      std::tie(result.heuristic, result.heuristic_ms) = bench.time_heuristic(make, buffers);
      // The same plan as a candidate: its time, so that run-to-run noise does
      // not show as a ratio below 1.
      for (const Candidate& c : result.candidates) {
        if (c.plan == result.heuristic) result.heuristic_ms = c.ms;
      }
      const bool memory_bound = multiply_adds(probe.operation_graph()) == 0;
      // Each side's three fastest of the autotune above timed again in
      // turn among themselves (one autotune ranks close candidates, such as
      // a team of two against one thread, by noise often enough to pick the
      // wrong one), then the fastest of each side timed in turn as a pair (a
      // side's candidate that streams a large workspace would evict the
      // caches of the other side's that runs after it).
      auto plan_of = [&](const Candidate& c) {
        Graph g = make();
        (void)g.create_execution_plan_ext(c.engine, c.knobs);
        (void)g.build_plans(BuildPlanPolicy::ALL);
        return g;
      };
      auto retimed_fastest = [&](const std::vector<const Candidate*>& side) -> const Candidate* {
        if (side.size() < 2) return side.empty() ? nullptr : side.front();
        std::vector<Graph> plans;
        for (const Candidate* c : side) plans.push_back(plan_of(*c));
        const std::vector<double> ms = bench.time_plans_interleaved(plans, buffers);
        std::size_t best = 0;
        for (std::size_t i = 1; i < ms.size(); ++i) {  // a plan that cannot run (NaN) is never best
          if (!std::isnan(ms[i]) && (std::isnan(ms[best]) || ms[i] < ms[best])) best = i;
        }
        return side[best];
      };
      const Candidate* tunekit_best = nullptr;
      const Candidate* onednn_best = nullptr;
      if (result.convolution || memory_bound) {
        tunekit_best =
            retimed_fastest(result.fastest([](const Candidate& c) { return c.provider == "tunekit"; }, kPairCandidates));
        onednn_best = retimed_fastest(result.fastest(
            [&](const Candidate& c) { return result.convolution ? CaseResult::onednn_direct(c) : c.provider == "onednn"; },
            kPairCandidates));
      }
      if (tunekit_best != nullptr && onednn_best != nullptr) {
        std::vector<Graph> pair;
        pair.push_back(plan_of(*tunekit_best));
        pair.push_back(plan_of(*onednn_best));
        const std::vector<double> ms = bench.time_plans_interleaved(pair, buffers);
        result.tunekit_plan = tunekit_best->plan;
        result.tunekit_vs_onednn[0] = ms[0];
        result.tunekit_vs_onednn[1] = ms[1];
      }
      if (memory_bound) {
        std::size_t largest = 0;
        for (const auto& [uid, values] : buffers.data) largest = std::max(largest, values.size() * sizeof(float));
        result.copy_ms = time_copy(largest, static_cast<int>(device.execution().effective_threads), options.min_time);
      }
      cases.push_back(std::move(result));
    }
  }

  // The single library best over every case, by geometric mean of its time over the winner's.
  const std::vector<std::string> providers = {"tunekit", "openblas", "blis", "onednn", "libxsmm", "tunekit-find"};
  std::string best_single;
  double best_score = HUGE_VAL;
  for (const std::string& provider : providers) {
    double log_sum = 0;
    // A provider absent from a case (no engine of it applies) counts as
    // infinitely slow there: the best single library must cover every case.
    for (const CaseResult& c : cases) log_sum += std::log(c.best_of(provider) / c.winner().ms);
    const double score = std::exp(log_sum / static_cast<double>(std::max<std::size_t>(cases.size(), 1)));
    std::printf("%-9s geometric mean of its best time over the winner's: %.3f\n", provider.c_str(), score);
    if (score < best_score) best_score = score, best_single = provider;
  }
  std::printf("\n%-36s %-34s %10s %-30s %10s %16s %18s\n", "graph [shape set]", "winner", "ms",
              "heuristic's first choice", "/winner", fmt::format("{}/winner", best_single).c_str(),
              "onednn auto/winner");
  for (const CaseResult& c : cases) {
    const Candidate& w = c.winner();
    // oneDNN's own choice (CPU_CONV_ONEDNN at its defaults: algorithm auto)
    // beside the tuned one, for the convolutions.
    double onednn_auto = std::nan("");
    for (const Candidate& candidate : c.candidates) {
      if (candidate.plan == "CPU_CONV_ONEDNN") onednn_auto = candidate.ms;
    }
    std::printf("%-36s %-34s %10.4f %-30s %10.3f %16.3f %18.3f\n", c.name.c_str(), w.plan.c_str(), w.ms,
                c.heuristic.c_str(), c.heuristic_ms / w.ms, c.best_of(best_single) / w.ms, onednn_auto / w.ms);
  }

  std::printf("\nmemory-bound cases: tunekit's and oneDNN's best (each side's three fastest timed again in turn, then"
              " the two best as a pair) against each other and against a"
              " copy of the graph's largest tensor on %u threads (memcpy slices in an OpenMP team; ratios over tunekit's"
              " time)\n",
              device.execution().effective_threads);
  std::printf("%-36s %10s %12s %12s %14s %12s\n", "graph [shape set]", "copy ms", "tunekit ms", "onednn ms",
              "onednn/tunekit", "copy/tunekit");
  for (const CaseResult& c : cases) {
    if (c.copy_ms == 0) continue;
    const double tk = c.tunekit_vs_onednn[0], dnn = c.tunekit_vs_onednn[1];
    std::printf("%-36s %10.4f %12.4f %12.4f %14.3f %12.3f\n", c.name.c_str(), c.copy_ms, tk, dnn, dnn / tk,
                c.copy_ms / tk);
  }

  std::printf("\nconvolutions: tunekit's engines against oneDNN's direct algorithm (each side's three fastest"
              " candidates timed again in turn, then the fastest of each side in turn as a pair); ratio: oneDNN"
              " direct's time over tunekit's\n");
  std::printf("%-42s %-48s %12s %16s %8s\n", "graph [shape set]", "tunekit's fastest", "tunekit ms",
              "onednn direct ms", "ratio");
  for (const CaseResult& c : cases) {
    if (!c.convolution || c.tunekit_plan.empty()) continue;
    std::printf("%-42s %-48s %12.4f %16.4f %8.3f\n", c.name.c_str(), c.tunekit_plan.c_str(), c.tunekit_vs_onednn[0],
                c.tunekit_vs_onednn[1], c.tunekit_vs_onednn[1] / c.tunekit_vs_onednn[0]);
  }

  report_nearest_shapes(bench, files, cases, options);

  std::printf("\ntunekit's matmul against the faster of OpenBLAS and BLIS (BLIS in the fastest of its configurations this processor runs; ratio: the faster's time over tunekit's;"
              " oneDNN beside them)\n");
  std::printf("%-14s %8s %12s %12s %12s %12s %10s\n", "square", "threads", "tunekit ms", "openblas ms", "blis ms (config)",
              "onednn ms", "ratio");
  const std::vector<std::int64_t> squares = options.quick ? std::vector<std::int64_t>{1024}
                                                          : std::vector<std::int64_t>{1024, 2048};
  for (std::int64_t n : squares) {
    const GraphMaker make = [&] { return square_matmul(bench.handle(), n); };
    Graph probe = make();
    Buffers buffers(probe.operation_graph());
    const int hardware = static_cast<int>(device.execution().effective_threads);
    for (int threads : std::set<int>{1, std::min(2, hardware)}) {
      // BLIS in its detected configuration and in each other one it holds
      // that this processor runs; its fastest is the one compared.
      std::vector<std::pair<std::int64_t, std::map<std::string, KnobValue>>> plans{
          {engines::kMatmulTunekitEngine, {}}, {engines::kMatmulOpenblasEngine, {}},
          {engines::kMatmulOnednnEngine, {}}, {engines::kMatmulBlisEngine, {}}};
      std::vector<std::string> blis_names{engines::blis_configuration()};
      if (const auto* blis = bench.registry().find(engines::kMatmulBlisEngine)) {
        for (const std::string& configuration : Bench::other_configurations(blis->descriptor())) {
          plans.push_back({engines::kMatmulBlisEngine, {{"configuration", configuration}}});
          blis_names.push_back(configuration);
        }
      }
      std::vector<Graph> graphs;
      for (auto& [engine, knobs] : plans) {
        knobs["threads"] = std::int64_t{threads};
        graphs.push_back(make());
        (void)graphs.back().create_execution_plan_ext(engine, knobs);
        (void)graphs.back().build_plans(BuildPlanPolicy::ALL);
      }
      const std::vector<double> ms = bench.time_plans_interleaved(graphs, buffers);
      const double tk = ms[0], ob = ms[1], dn = ms[2];
      const auto fastest_blis = std::min_element(ms.begin() + 3, ms.end(), [](double a, double b) {
        return !std::isnan(a) && (std::isnan(b) || a < b);
      });
      const double bl = *fastest_blis;
      std::printf("%-14s %8d %12.3f %12.3f %12s %12.3f %10.3f\n", fmt::format("{0}x{0}x{0}", n).c_str(), threads, tk,
                  ob, fmt::format("{:.3f} {}", bl, blis_names[fastest_blis - (ms.begin() + 3)]).c_str(), dn,
                  std::min(ob, bl) / tk);
    }
  }

  // autotune()'s own cost: its wall time over the executions it timed.
  {
    const GraphFile file =
        read_graph_file(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs/bert_base_mlp.toml").value();
    Graph graph = make_graph(file).value();
    (void)graph.validate();
    (void)graph.build_operation_graph(bench.handle());
    for (const auto& engine : bench.registry().engines()) {
      const std::int64_t id = engine->descriptor().id;
      if (engine->descriptor().reference) continue;
      (void)graph.add_engine(id);
      (void)graph.add_engine(id, {{"threads", std::int64_t{1}}});
    }
    Buffers buffers(graph.operation_graph());
    std::vector<std::byte> workspace(std::size_t{64} << 20);
    AutotuneConfig config;
    std::vector<AutotuneResult> results;
    const auto start = Clock::now();
    const Error tuned = graph.autotune(bench.handle(), buffers.pack, workspace.data(),
                                       static_cast<std::int64_t>(workspace.size()), config, {}, &results);
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    double timed = 0;
    for (const AutotuneResult& r : results) {
      timed += r.avg_time_ms * r.iterations_run * static_cast<double>(std::max<std::int64_t>(r.batch_size, 1));
    }
    std::printf("\nautotune() of %s (%zu candidates): %.1f ms wall, %.1f ms of timed executions: overhead %.2fx%s\n",
                file.name.c_str(), results.size(), wall, timed, wall / timed, tuned.is_good() ? "" : " (failed)");
  }
  return 0;
}
