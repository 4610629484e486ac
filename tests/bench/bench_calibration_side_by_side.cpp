// Do independent calibrations choose configurations that run alike? Takes
// the profiles of N calibrations of the same machine (`tunekit calibrate
// --profile-out`, one file per run; calibration_agreement.py --side-by-side
// makes them) and, for every unary and binary key in them, times the
// distinct configurations the runs chose and the portable default side by
// side: in one process, on the same operands, one sample of each in turn per
// round, on the sizes where their paths differ
// (elementwise_side_by_side_sizes). Per configuration its time over the
// fastest chosen one's at each size, combined by geometric mean over the
// sizes; per key the slowest chosen over the fastest chosen (the issue's
// measure: within 3%), and the slowest chosen over the default (none should
// be slower beyond the tie band of 2%). A key a run did not calibrate counts
// as that run choosing the defaults. Gemm keys are listed as not timed.
//
//   bench_calibration_side_by_side [--rounds N] [--min-sample-ms MS] [--settle-ms MS] [--kernels A,B]
//                                  PROFILE.toml...
// (defaults: 7 rounds, samples of at least 2 ms, 10 ms of settling before each).
//
// Exit 2 on bad arguments or an unreadable profile, 1 when a run fails.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "calibrated_vs_default_comparisons.hpp"
#include "configuration_sampling.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/measure/statistics.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/deployment_profile.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::bench {
namespace {

struct Options {
  int rounds = 7;
  double min_sample_ms = 2.0;
  // settle() before each sample (each follows another configuration's): the
  // threads a parallel configuration leaves spinning would otherwise slow the
  // serial one timed after it (on 2 cores, by more than the differences measured).
  double settle_ms = 10.0;
  std::vector<std::string> kernels;  // empty: every key
  std::vector<std::string> profiles;
};

// The median time of each configuration at n elements, sampled in turn.
Result<std::vector<double>> time_side_by_side(const tuning::KernelTuningSchema& schema,
                                              const std::vector<tuning::KernelTuningParameters>& configs,
                                              std::int64_t n, const Options& options) {
  Result<std::vector<std::function<Error()>>> runs = elementwise_runs(schema, configs, n, 0x7E5EC0DE);
  if (!runs.ok()) return runs.error();
  std::vector<measure::BatchedSampler> samplers;
  for (const auto& run : *runs) {
    Result<measure::BatchedSampler> sampler = ready_sampler(run, options.min_sample_ms);
    if (!sampler.ok()) return sampler.error();
    samplers.push_back(std::move(sampler).value());
  }
  std::vector<std::vector<double>> samples(runs->size());
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t i = 0; i < runs->size(); ++i) {
      TUNEKIT_RETURN_IF_ERROR(settle((*runs)[i], options.settle_ms));
      Result<double> ms = samplers[i].sample();
      if (!ms.ok()) return ms.error();
      samples[i].push_back(*ms);
    }
  }
  std::vector<double> medians;
  for (const auto& s : samples) medians.push_back(measure::median(s));
  return medians;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--rounds" || arg == "--min-sample-ms" || arg == "--settle-ms" || arg == "--kernels") &&
        i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--rounds") o.rounds = std::atoi(value.c_str());
      if (arg == "--settle-ms") o.settle_ms = std::atof(value.c_str());
      if (arg == "--min-sample-ms") o.min_sample_ms = std::atof(value.c_str());
      if (arg == "--kernels") {
        for (std::size_t at = 0; at <= value.size();) {
          const std::size_t comma = std::min(value.find(',', at), value.size());
          if (comma > at) o.kernels.push_back(value.substr(at, comma - at));
          at = comma + 1;
        }
      }
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return false;
    } else {
      o.profiles.push_back(arg);
    }
  }
  if (o.rounds < 3 || o.min_sample_ms <= 0 || o.settle_ms < 0 || o.profiles.size() < 2) {
    std::fprintf(stderr,
                 "usage: bench_calibration_side_by_side [--rounds N>=3] [--min-sample-ms MS] [--settle-ms MS] "
                 "[--kernels A,B] PROFILE.toml PROFILE.toml...\n");
    return false;
  }
  return true;
}

int run(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, options)) return 2;
  const platform::CpuDescriptor& cpu = platform::GetCpuDescriptor();
  std::printf("machine: %s (%s), tunekit_cpu path %s, %u threads; %zu calibrations, %d rounds\n",
              cpu.model_name.c_str(), platform::identity_string(cpu).c_str(),
              std::string(cpu::to_string(cpu::active_isa())).c_str(),
              static_cast<unsigned>(platform::detect_execution_descriptor().effective_threads),
              options.profiles.size(), options.rounds);

  // key -> the parameters each run chose (empty: the defaults).
  std::map<std::string, std::vector<tuning::KernelTuningParameters>> chosen;
  std::map<std::string, tuning::KernelTuningKey> keys;
  for (std::size_t run = 0; run < options.profiles.size(); ++run) {
    Result<std::vector<tuning::KernelTuningProfile>> profiles = tuning::ReadDeploymentProfiles(options.profiles[run]);
    if (!profiles.ok()) {
      std::fprintf(stderr, "%s\n", profiles.error().message().c_str());
      return 2;
    }
    for (const tuning::KernelTuningProfile& p : *profiles) {
      const std::string name = p.parameters.key.to_string();
      keys.emplace(name, p.parameters.key);
      auto& per_run = chosen[name];
      per_run.resize(options.profiles.size(), tuning::KernelTuningParameters{p.parameters.key, {}});
      per_run[run] = p.parameters;
    }
  }

  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  cpu::register_tunekit_cpu(registry, functions);
  const auto generation = registry.snapshot();

  int timed = 0, within = 0, slower_than_default = 0;
  std::printf("\n%-44s %9s %7s %11s %14s  %s\n", "key", "distinct", "sizes", "slowest/fastest", "slowest/default",
              "configurations (runs choosing each)");
  for (auto& [name, per_run] : chosen) {
    const tuning::KernelTuningKey& key = keys.at(name);
    if (!options.kernels.empty() &&
        std::find(options.kernels.begin(), options.kernels.end(), key.kernel) == options.kernels.end()) {
      continue;
    }
    per_run.resize(options.profiles.size(), tuning::KernelTuningParameters{key, {}});
    const tuning::KernelTuningSchema* schema = generation->schema(key);
    if (schema == nullptr) continue;
    // The distinct configurations, as complete parameter sets, and how many runs chose each.
    std::vector<tuning::KernelTuningParameters> distinct;
    std::vector<int> votes;
    for (const auto& p : per_run) {
      const tuning::KernelTuningParameters complete = schema->merge(p);
      auto same = std::find_if(distinct.begin(), distinct.end(),
                               [&](const tuning::KernelTuningParameters& d) { return d.values == complete.values; });
      if (same == distinct.end()) {
        distinct.push_back(complete);
        votes.push_back(1);
      } else {
        ++votes[static_cast<std::size_t>(same - distinct.begin())];
      }
    }
    std::string listed;
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      std::string values;
      for (const auto& [parameter, value] : distinct[i].values) {
        values += fmt::format("{}{}={}", values.empty() ? "" : " ", parameter, value.to_text());
      }
      listed += fmt::format("{}[{}] ({})", i == 0 ? "" : "; ", values, votes[i]);
    }
    std::vector<tuning::KernelTuningParameters> configs{schema->defaults()};
    configs.insert(configs.end(), distinct.begin(), distinct.end());
    const std::vector<std::int64_t> sizes = elementwise_side_by_side_sizes(*schema, configs);
    if (sizes.empty()) {
      std::printf("%-44s %9zu %7s %11s %14s  %s (not timed: not an elementwise key)\n", name.c_str(), distinct.size(),
                  "-", "-", "-", listed.c_str());
      continue;
    }
    // log(time / the fastest chosen's) summed over the sizes, per configuration.
    std::vector<double> log_ratio(configs.size(), 0.0);
    for (std::int64_t n : sizes) {
      Result<std::vector<double>> ms = time_side_by_side(*schema, configs, n, options);
      if (!ms.ok()) {
        std::fprintf(stderr, "%s at n=%lld: %s\n", name.c_str(), static_cast<long long>(n),
                     ms.error().message().c_str());
        return 1;
      }
      const double fastest = *std::min_element(ms->begin() + 1, ms->end());
      for (std::size_t i = 0; i < configs.size(); ++i) log_ratio[i] += std::log((*ms)[i] / fastest);
    }
    std::vector<double> score;
    for (double l : log_ratio) score.push_back(std::exp(l / static_cast<double>(sizes.size())));
    const double best = *std::min_element(score.begin() + 1, score.end());
    const double worst = *std::max_element(score.begin() + 1, score.end());
    const double vs_default = worst / score[0];
    ++timed;
    within += worst / best <= 1.03;
    slower_than_default += vs_default > 1.02;
    std::printf("%-44s %9zu %7zu %11.3f %14.3f  %s\n", name.c_str(), distinct.size(), sizes.size(), worst / best,
                vs_default, listed.c_str());
  }
  std::printf("\n%d of %d timed keys have every chosen configuration within 3%% of the fastest chosen (%.2f); "
              "%d keys have a chosen configuration slower than the portable default beyond 2%%\n",
              within, timed, timed > 0 ? static_cast<double>(within) / timed : 0.0, slower_than_default);
  return 0;
}

}  // namespace
}  // namespace tunekit::bench

int main(int argc, char** argv) { return tunekit::bench::run(argc, argv); }
