// Do tunes agree with each other? Every sample graph and shape set is
// autotuned again and again in one process under three settings, and the
// benchmark prints, per shape and in total, how often a tune picked the
// majority winner ("agree"), how often it picked the majority winner or a
// candidate within the tie band of it ("in band"), with the measurements and
// wall time it needed:
//   min time  run_until_stable ranked by min time (tie band 0: the order
//             hipDNN specifies, the behaviour before the tie rule);
//   stable    run_until_stable with the 2% tie band;
//   race      the race with the 2% tie band.
// The candidates are the library engines at their defaults and on one
// thread (the reference engines, orders of magnitude slower, are left out).
// "In band" is judged afterwards: every distinct winner of a shape (any
// setting) is timed side by side with the majority winner, in rounds that
// take turns (kSideBySideRounds autotunes of those candidates alone, their
// samples pooled), and a pick lands in the band when its median is within
// the tie band (2%) of the majority winner's, on either side; the bootstrap
// interval of that ratio against the race's majority winner is printed for
// every other winner. The majority of a shape whose counts tie is the first
// of them in name order.
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

#include "tunekit/cpu/register.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "random_graph_buffers.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/handle.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/measure/comparison.hpp"
#include "tunekit/measure/statistics.hpp"
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

constexpr int kSideBySideRounds = 10;
constexpr double kTieBand = 0.02;

// A winner as the graph names it: its engine and the knobs set on it.
struct Pick {
  std::int64_t engine_id;
  std::vector<KnobSetting> knobs;
};

struct Tally {
  std::map<std::string, int> winners;
  // Timed executions (batches counted per execution), and a race's untimed
  // runs before each sample, so that the strategies compare at equal cost.
  long long measurements = 0;
  double wall_ms = 0;
  int tunes = 0;
  int majority() const { return winners.empty() ? 0 : winners.at(majority_key()); }
  // The most picked winner; the first in name order of equal counts.
  std::string majority_key() const {
    std::string key;
    int best = 0;
    for (const auto& [name, count] : winners) {
      if (count > best) best = count, key = name;
    }
    return key;
  }
};

std::string winner_key(const AutotuneResult& r) {
  return fmt::format("{} {}", r.engine_name, describe_knob_settings(r.knob_settings));
}

using Buffers = tunekit::bench::RandomGraphBuffers;

// One tune of one shape; false when it could not run.
bool tune_once(const GraphFile& file, std::optional<std::size_t> set, Handle* handle, const EngineRegistry& registry,
               const Setting& setting, Tally& tally, std::map<std::string, Pick>& picks) {
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
    if (r.succeeded) {
      tally.measurements +=
          static_cast<long long>(r.samples_ms.size()) * std::max<std::int64_t>(r.batch_size, 1) + r.rewarm_executions;
    }
  }
  ++tally.winners[winner_key(results.front())];
  picks[winner_key(results.front())] = Pick{results.front().engine_id, results.front().knob_settings};
  ++tally.tunes;
  return true;
}

// The distinct winners of one shape timed side by side: every round
// autotunes them alone (fixed iterations, no result check: each was checked
// when it won), and their samples are pooled per winner. Empty when a round
// could not run.
std::map<std::string, std::vector<double>> side_by_side(const GraphFile& file, std::optional<std::size_t> set,
                                                        Handle* handle, const std::map<std::string, Pick>& picks) {
  std::map<std::string, std::vector<double>> samples;
  Result<Graph> made = make_graph(file, set);
  if (!made.ok()) return {};
  Graph& graph = *made;
  if (graph.build_operation_graph(handle).is_bad()) return {};
  for (const auto& [key, pick] : picks) (void)graph.add_engine(pick.engine_id, pick.knobs);
  std::int64_t workspace_size = 0;
  if (graph.get_estimated_max_workspace_size(workspace_size).is_bad()) return {};
  Buffers buffers(graph.operation_graph());
  std::vector<std::byte> workspace(static_cast<std::size_t>(workspace_size) + 64);
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  config.timed_iterations = 5;
  config.check_results = false;
  for (int round = 0; round < kSideBySideRounds; ++round) {
    std::vector<AutotuneResult> results;
    if (graph.autotune(handle, buffers.pack, workspace.data(), workspace_size, config, {}, &results).is_bad()) return {};
    for (const AutotuneResult& r : results) {
      if (!r.succeeded) return {};
      std::vector<double>& mine = samples[winner_key(r)];
      mine.insert(mine.end(), r.samples_ms.begin(), r.samples_ms.end());
    }
  }
  return samples;
}

// Tunes of `tally` that picked the majority winner or one whose side-by-side
// median is within the tie band of its median.
int in_band(const Tally& tally, const std::map<std::string, std::vector<double>>& samples, const std::string& majority) {
  const auto reference = samples.find(majority);
  int count = 0;
  for (const auto& [key, picked] : tally.winners) {
    const auto mine = samples.find(key);
    if (key == majority) {
      count += picked;
    } else if (reference != samples.end() && mine != samples.end()) {
      // Within the band on either side: a pick clearly faster than the
      // majority winner disagrees as much as one clearly slower.
      const double ratio = measure::median(mine->second) / measure::median(reference->second);
      if (ratio <= 1.0 + kTieBand && ratio >= 1.0 / (1.0 + kTieBand)) count += picked;
    }
  }
  return count;
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
  cpu::register_tunekit_cpu();  // the committed processor profiles, as `tunekit tune` has them
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

  std::printf("%d tunes per shape and setting; agree = tunes that picked the majority winner, in band = the\n"
              "majority winner or one within %.0f%% of it timed side by side afterwards (%d rounds)\n\n",
              repeats, kTieBand * 100, kSideBySideRounds);
  std::printf("%-48s", "graph [shape set]");
  for (const Setting& s : kSettings) std::printf(" %10s agree  band %8s %8s", s.name, "meas", "s");
  std::printf("\n");
  Tally totals[std::size(kSettings)];
  int agreeing[std::size(kSettings)] = {};
  int banded[std::size(kSettings)] = {};
  for (const auto& path : files) {
    Result<GraphFile> file = read_graph_file(path);
    if (!file.ok()) return 1;
    std::vector<std::optional<std::size_t>> sets{std::nullopt};
    for (std::size_t s = 0; s < file->shape_sets.size(); ++s) sets.push_back(s);
    for (const auto& set : sets) {
      Tally tallies[std::size(kSettings)];
      std::map<std::string, Pick> picks;
      bool ran = true;
      // Settings interleaved per repeat, so a slow spell of the machine hits all three alike.
      for (int r = 0; r < repeats && ran; ++r) {
        for (std::size_t s = 0; s < std::size(kSettings) && ran; ++s) {
          ran = tune_once(*file, set, handle.get(), *registry, kSettings[s], tallies[s], picks);
        }
      }
      const std::string label = fmt::format("{} [{}]", path.stem().string(), shape_name(*file, set));
      if (!ran) {
        std::printf("%-48s could not be tuned\n", label.c_str());
        continue;
      }
      const std::map<std::string, std::vector<double>> samples =
          picks.size() > 1 ? side_by_side(*file, set, handle.get(), picks) : std::map<std::string, std::vector<double>>{};
      std::printf("%-48s", label.c_str());
      for (std::size_t s = 0; s < std::size(kSettings); ++s) {
        const Tally& t = tallies[s];
        const int within = picks.size() > 1 ? in_band(t, samples, t.majority_key()) : t.tunes;
        std::printf(" %10s %5.2f %5.2f %8lld %8.2f", "", static_cast<double>(t.majority()) / t.tunes,
                    static_cast<double>(within) / t.tunes, t.measurements, t.wall_ms / 1e3);
        agreeing[s] += t.majority();
        banded[s] += within;
        totals[s].tunes += t.tunes;
        totals[s].measurements += t.measurements;
        totals[s].wall_ms += t.wall_ms;
      }
      std::printf("\n");
      // Every distinct winner against the race's majority winner, side by side.
      const std::string reference = tallies[std::size(kSettings) - 1].majority_key();
      const auto ref = samples.find(reference);
      for (const auto& [key, mine] : samples) {
        if (key == reference || ref == samples.end()) continue;
        measure::ComparisonConfig band;
        band.tie_band = kTieBand;
        const measure::Comparison c = measure::compare_times(mine, ref->second, band);
        std::printf("    %-44s %s against %s\n", key.c_str(), measure::describe(c, band).c_str(), reference.c_str());
      }
    }
  }
  std::printf("\n");
  for (std::size_t s = 0; s < std::size(kSettings); ++s) {
    const Tally& t = totals[s];
    if (t.tunes == 0) continue;
    std::printf("%-9s agreement %.3f, in band %.3f, over %d tunes, %lld executions (timed, and a race's re-warm runs), %.1f s of autotune()\n",
                kSettings[s].name, static_cast<double>(agreeing[s]) / t.tunes, static_cast<double>(banded[s]) / t.tunes,
                t.tunes, t.measurements, t.wall_ms / 1e3);
  }
  return 0;
}
