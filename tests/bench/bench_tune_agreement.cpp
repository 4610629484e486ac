// Do tunes agree with each other? Every sample graph and shape set is
// autotuned again and again in one process under three settings, and the
// benchmark prints, per shape and in total, how often a tune picked the
// majority winner, with the measurements and wall time it needed:
//   min time  run_until_stable ranked by min time (tie band 0: the order
//             hipDNN specifies, the behaviour before the tie rule);
//   stable    run_until_stable with the 2% tie band;
//   race      the race with the 2% tie band.
// The candidates are the library engines at their defaults and on one
// thread (the reference engines, orders of magnitude slower, are left out).
//
//   bench_tune_agreement [--repeats N] [--quick] [--graph NAME]...
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tunekit/engines/cpu_engines.hpp"
#include "random_graph_buffers.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/handle.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;
using Clock = std::chrono::steady_clock;

struct Setting {
  const char* name;
  AutotuneStrategy strategy;
  double tie_band;
};
const Setting kSettings[] = {{"min time", AutotuneStrategy::RUN_UNTIL_STABLE, 0.0},
                             {"stable", AutotuneStrategy::RUN_UNTIL_STABLE, 0.02},
                             {"race", AutotuneStrategy::RACE, 0.02}};

struct Tally {
  std::map<std::string, int> winners;
  long long measurements = 0;  // timed executions, batches counted per execution
  double wall_ms = 0;
  int tunes = 0;
  int majority() const {
    int best = 0;
    for (const auto& [name, count] : winners) best = std::max(best, count);
    return best;
  }
};

std::string winner_key(const AutotuneResult& r) {
  return fmt::format("{} {}", r.engine_name, describe_knob_settings(r.knob_settings));
}

using Buffers = tunekit::bench::RandomGraphBuffers;

// One tune of one shape; false when it could not run.
bool tune_once(const GraphFile& file, std::optional<std::size_t> set, Handle* handle, const EngineRegistry& registry,
               const Setting& setting, Tally& tally) {
  Result<Graph> made = make_graph(file, set);
  if (!made.ok()) return false;
  Graph& graph = *made;
  if (graph.build_operation_graph(handle).is_bad()) return false;
  for (const auto& engine : registry.engines()) {
    const std::int64_t id = engine->descriptor().id;
    if (engine->descriptor().reference) continue;
    (void)graph.add_engine(id);
    (void)graph.add_engine(id, {{"threads", std::int64_t{1}}});
  }
  std::int64_t workspace_size = 0;
  if (graph.get_estimated_max_workspace_size(workspace_size).is_bad()) return false;
  Buffers buffers(graph.operation_graph());
  std::vector<std::byte> workspace(static_cast<std::size_t>(workspace_size) + 64);
  AutotuneConfig config;
  config.strategy = setting.strategy;
  config.tie_band = setting.tie_band;
  std::vector<AutotuneResult> results;
  const auto start = Clock::now();
  const Error tuned =
      graph.autotune(handle, buffers.pack, workspace.data(), workspace_size, config, {}, &results);
  tally.wall_ms += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (tuned.is_bad() || results.empty() || !results.front().succeeded) return false;
  for (const AutotuneResult& r : results) {
    if (r.succeeded) tally.measurements += static_cast<long long>(r.samples_ms.size()) * std::max<std::int64_t>(r.batch_size, 1);
  }
  ++tally.winners[winner_key(results.front())];
  ++tally.tunes;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // one line per shape as it finishes
  int repeats = 10;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      repeats = 2;
      only = {"layernorm", "rmsnorm"};
    } else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--graph") == 0 && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_tune_agreement [--repeats N] [--quick] [--graph NAME]...\n");
      return 2;
    }
  }
  auto registry = std::make_shared<EngineRegistry>();
  if (engines::register_cpu_engines(*registry).is_bad()) return 1;
  platform::CpuDevice device;
  std::unique_ptr<Handle> handle = std::move(Handle::create(device, registry)).value();

  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TUNEKIT_SOURCE_DIR) / "examples/graphs")) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() == ".toml" && (only.empty() || std::count(only.begin(), only.end(), stem) > 0)) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());

  std::printf("%d tunes per shape and setting; agreement = tunes that picked the majority winner\n\n", repeats);
  std::printf("%-48s", "graph [shape set]");
  for (const Setting& s : kSettings) std::printf(" %10s agree %8s %8s", s.name, "meas", "s");
  std::printf("\n");
  Tally totals[std::size(kSettings)];
  int agreeing[std::size(kSettings)] = {};
  for (const auto& path : files) {
    Result<GraphFile> file = read_graph_file(path);
    if (!file.ok()) return 1;
    std::vector<std::optional<std::size_t>> sets{std::nullopt};
    for (std::size_t s = 0; s < file->shape_sets.size(); ++s) sets.push_back(s);
    for (const auto& set : sets) {
      Tally tallies[std::size(kSettings)];
      bool ran = true;
      // Settings interleaved per repeat, so a slow spell of the machine hits all three alike.
      for (int r = 0; r < repeats && ran; ++r) {
        for (std::size_t s = 0; s < std::size(kSettings) && ran; ++s) {
          ran = tune_once(*file, set, handle.get(), *registry, kSettings[s], tallies[s]);
        }
      }
      const std::string label = fmt::format("{} [{}]", path.stem().string(), shape_name(*file, set));
      if (!ran) {
        std::printf("%-48s could not be tuned\n", label.c_str());
        continue;
      }
      std::printf("%-48s", label.c_str());
      for (std::size_t s = 0; s < std::size(kSettings); ++s) {
        const Tally& t = tallies[s];
        std::printf(" %10s %5.2f %8lld %8.2f", "", static_cast<double>(t.majority()) / t.tunes, t.measurements,
                    t.wall_ms / 1e3);
        agreeing[s] += t.majority();
        totals[s].tunes += t.tunes;
        totals[s].measurements += t.measurements;
        totals[s].wall_ms += t.wall_ms;
      }
      std::printf("\n");
    }
  }
  std::printf("\n");
  for (std::size_t s = 0; s < std::size(kSettings); ++s) {
    const Tally& t = totals[s];
    if (t.tunes == 0) continue;
    std::printf("%-9s agreement %.3f over %d tunes, %lld timed executions, %.1f s of autotune()\n", kSettings[s].name,
                static_cast<double>(agreeing[s]) / t.tunes, t.tunes, t.measurements, t.wall_ms / 1e3);
  }
  return 0;
}
