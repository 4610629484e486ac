// Calibrated values against the portable defaults, measured in the same run:
// calibrates the selected tunekit_cpu keys in this process through the
// shared calibration API (the callbacks `tunekit calibrate --library
// tunekit_cpu` runs; nothing is cached), then times the real kernel with the
// calibrated configuration and with the portable default, interleaved on the
// same operands, for every parameter whose value changed
// (calibrated_vs_default_comparisons.hpp). One Google Benchmark per key x
// parameter x shape with counters default_ms, calibrated_ms (medians), ratio
// (the median over the interleaved pairs of default / calibrated: >= 1 means
// calibration helps) and its interval ratio_low..ratio_high
// (calibrated_vs_default_plan.hpp: compare_pairs), then a table; rows found
// SLOWER are timed again at the end and stay SLOWER only if confirmed
// (confirm_slower).
//
// Flags besides Google Benchmark's:
//   --tk_kernels=Abs,Add,Gemm  --tk_types=float,double  (default: every key)
//   --tk_time_budget=<s per key, 10>  --tk_memory_mib=<512>   (the calibration's budgets)
//   --tk_repetitions=<7>  --tk_min_sample_ms=<2>   (timing of each comparison)
//   --tk_settle_ms=<10>   pause (then 3 untimed runs) whenever the timed configuration changes
//   --tk_fail_on_slower   exit 1 when a row is SLOWER beyond noise (off by
//                         default: shared machines are noisy)
// Exit 1 when calibration or a kernel run fails, 2 on bad flags.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrated_vs_default_comparisons.hpp"
#include "calibrated_vs_default_plan.hpp"
#include "configuration_sampling.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/measure/statistics.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::bench {
namespace {

struct Flags {
  std::vector<std::string> kernels;
  std::vector<DataType> types;
  double time_budget_s = 10.0;
  std::size_t memory_mib = 512;
  int repetitions = 7;
  double min_sample_ms = 2.0;
  double settle_ms = 10.0;
  bool fail_on_slower = false;
};

struct Outcome {
  bool ran = false;
  std::string error;
  double default_ms = 0, calibrated_ms = 0;
  PairedComparison paired;
  // A SLOWER row timed again after every row has run (confirm_slower).
  std::optional<PairedComparison> recheck;

  Verdict verdict() const noexcept { return recheck ? confirm_slower(paired, *recheck) : paired.verdict; }
};

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// Removes the --tk_ flags from argv; false with a message on a bad one.
bool parse_flags(int& argc, char** argv, Flags& flags) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view prefix) { return arg.substr(prefix.size()); };
    if (arg.starts_with("--tk_kernels=")) {
      flags.kernels = split(value("--tk_kernels="));
    } else if (arg.starts_with("--tk_types=")) {
      for (const std::string& name : split(value("--tk_types="))) {
        auto type = core::parse_data_type(name);
        if (!type) {
          std::fprintf(stderr, "--tk_types: unknown data type '%s'\n", name.c_str());
          return false;
        }
        flags.types.push_back(*type);
      }
    } else if (arg.starts_with("--tk_time_budget=")) {
      flags.time_budget_s = std::atof(argv[i] + std::strlen("--tk_time_budget="));
    } else if (arg.starts_with("--tk_memory_mib=")) {
      flags.memory_mib = static_cast<std::size_t>(std::atoll(argv[i] + std::strlen("--tk_memory_mib=")));
    } else if (arg.starts_with("--tk_repetitions=")) {
      flags.repetitions = std::atoi(argv[i] + std::strlen("--tk_repetitions="));
    } else if (arg.starts_with("--tk_settle_ms=")) {
      flags.settle_ms = std::atof(argv[i] + std::strlen("--tk_settle_ms="));
    } else if (arg.starts_with("--tk_min_sample_ms=")) {
      flags.min_sample_ms = std::atof(argv[i] + std::strlen("--tk_min_sample_ms="));
    } else if (arg == "--tk_fail_on_slower") {
      flags.fail_on_slower = true;
    } else if (arg.starts_with("--tk_")) {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return false;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (flags.time_budget_s <= 0 || flags.memory_mib == 0 || flags.repetitions < 1 || flags.min_sample_ms <= 0) {
    std::fprintf(stderr, "--tk_time_budget, --tk_memory_mib, --tk_repetitions and --tk_min_sample_ms must be positive\n");
    return false;
  }
  return true;
}

Outcome measure_comparison(const Comparison& c, const Flags& flags) {
  Outcome out;
  out.ran = true;
  Result<ComparisonRuns> runs = c.prepare();
  if (!runs.ok()) {
    out.error = runs.error().message();
    return out;
  }
  Result<measure::BatchedSampler> d = ready_sampler(runs->run_default, flags.min_sample_ms);
  Result<measure::BatchedSampler> k = ready_sampler(runs->run_calibrated, flags.min_sample_ms);
  if (!d.ok() || !k.ok()) {
    out.error = (d.ok() ? k.error() : d.error()).message();
    return out;
  }
  int last = -1;
  const auto settled = [&](int which, measure::BatchedSampler& sampler) -> Result<double> {
    if (last != which) {
      TUNEKIT_RETURN_IF_ERROR(settle(which == 0 ? runs->run_default : runs->run_calibrated, flags.settle_ms));
    }
    last = which;
    return sampler.sample();
  };
  Result<PairedSamples> samples =
      interleave([&] { return settled(0, *d); }, [&] { return settled(1, *k); }, flags.repetitions);
  if (!samples.ok()) {
    out.error = samples.error().message();
    return out;
  }
  out.default_ms = measure::median(samples->default_ms);
  out.calibrated_ms = measure::median(samples->calibrated_ms);
  out.paired = compare_pairs(*samples);
  return out;
}

std::string benchmark_name(const Comparison& c) {
  std::string name = fmt::format("calibrated_vs_default/{}/{}/{}", c.key, c.parameter, c.shape);
  for (char& ch : name) {
    if (ch == ' ') ch = '_';
  }
  return name;
}

std::string verdict_text(const Outcome& o) {
  if (!o.recheck) return std::string(to_string(o.verdict()));
  return fmt::format("{} (recheck {:.3f} {:.2f}-{:.2f})", o.verdict() == Verdict::SLOWER ? "SLOWER" : "not confirmed",
                     o.recheck->ratio, o.recheck->low, o.recheck->high);
}

template <typename... Columns>
void print_row(const Columns&... columns) {
  fmt::print("{:<16} {:<52} {:>16} {:>16} {:<34} {:>11} {:>13} {:>6} {:>6}  {}\n", columns...);
}

void print_table(const std::vector<Comparison>& rows, const std::vector<Outcome>& outcomes) {
  print_row("key", "parameter", "default", "calibrated", "shape", "default ms", "calibrated ms", "ratio",
            "low-high", "verdict");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Comparison& c = rows[i];
    const Outcome& o = outcomes[i];
    if (!c.not_timed.empty()) {
      print_row(c.key, c.parameter, c.default_value, c.calibrated_value, "-", "-", "-", "-", "-", c.not_timed);
    } else if (!o.ran) {
      print_row(c.key, c.parameter, c.default_value, c.calibrated_value, c.shape, "-", "-", "-", "-",
                "not run (benchmark filter)");
    } else if (!o.error.empty()) {
      print_row(c.key, c.parameter, c.default_value, c.calibrated_value, c.shape, "-", "-", "-", "-",
                "FAILED: " + o.error);
    } else {
      print_row(c.key, c.parameter, c.default_value, c.calibrated_value, c.shape, fmt::format("{:.4g}", o.default_ms),
                fmt::format("{:.4g}", o.calibrated_ms), fmt::format("{:.3f}", o.paired.ratio),
                fmt::format("{:.2f}-{:.2f}", o.paired.low, o.paired.high), verdict_text(o));
    }
  }
}

int run(int argc, char** argv) {
  Flags flags;
  if (!parse_flags(argc, argv, flags)) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  tuning::CalibrationOptions options;
  options.time_budget = std::chrono::milliseconds(static_cast<std::int64_t>(flags.time_budget_s * 1000));
  options.memory_budget_bytes = flags.memory_mib << 20;
  options.execution = platform::detect_execution_descriptor();
  const platform::CpuDescriptor& cpu = options.execution->processor;
  std::printf("machine: %s (%s), tunekit_cpu path %s, %u threads\n", cpu.model_name.c_str(),
              platform::identity_string(cpu).c_str(), std::string(cpu::to_string(cpu::active_isa())).c_str(),
              static_cast<unsigned>(options.execution->effective_threads));

  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  cpu::register_tunekit_cpu(registry, functions);
  options.registry = &registry;
  tuning::KernelCalibrationSelection selection;
  selection.library = cpu::kTuningLibrary;
  selection.kernels = flags.kernels;
  selection.element_types = flags.types;
  std::vector<tuning::KernelTuningKey> keys;
  for (const tuning::KernelTuningKey& key : cpu::tunekit_cpu_tuning_keys()) {
    if (selection.selects(key)) keys.push_back(key);
  }
  if (keys.empty()) {
    std::fprintf(stderr, "the selection (%s) selects no tunekit_cpu key\n", selection.to_string().c_str());
    return 2;
  }
  options.progress = [](const tuning::KernelTuningKey& key, std::string_view event) {
    if (event != "start") std::fprintf(stderr, "calibrate: %s %s\n", key.to_string().c_str(), std::string(event).c_str());
  };
  tuning::CalibrationBatchReport report;
  try {
    report = tuning::CalibrateKernelThresholds(keys, options, &functions);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibration failed: %s\n", e.what());
    return 1;
  }

  ComparisonOptions comparison_options;
  comparison_options.memory_budget_bytes = options.memory_budget_bytes;
  comparison_options.seed = options.seed;
  std::vector<Comparison> rows;
  const std::shared_ptr<const tuning::RegistryGeneration> generation = registry.snapshot();
  for (const tuning::KernelTuningKey& key : keys) {
    tuning::KernelTuningParameters calibrated{key, {}};
    for (const tuning::CalibratedKey& c : report.calibrated) {
      if (c.profile.parameters.key == key) calibrated = c.profile.parameters;
    }
    for (const tuning::KeyOutcome& u : report.unsupported) {
      if (u.key == key) std::printf("unsupported: %s: %s\n", key.to_string().c_str(), u.reason.c_str());
    }
    const tuning::KernelTuningSchema* schema = generation->schema(key);
    if (schema == nullptr) continue;
    std::vector<Comparison> more = comparisons_for(*schema, calibrated, comparison_options);
    rows.insert(rows.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }

  std::vector<Outcome> outcomes(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].not_timed.empty()) continue;
    benchmark::RegisterBenchmark(benchmark_name(rows[i]).c_str(), [&rows, &outcomes, &flags, i](benchmark::State& state) {
      for (auto _ : state) outcomes[i] = measure_comparison(rows[i], flags);
      const Outcome& o = outcomes[i];
      if (!o.error.empty()) {
        state.SkipWithError(o.error.c_str());
        return;
      }
      state.counters["default_ms"] = o.default_ms;
      state.counters["calibrated_ms"] = o.calibrated_ms;
      state.counters["ratio"] = o.paired.ratio;
      state.counters["ratio_low"] = o.paired.low;
      state.counters["ratio_high"] = o.paired.high;
    })->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Rows found SLOWER are timed once more, now, far from their first
  // measurement in time.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Outcome& o = outcomes[i];
    if (!o.ran || !o.error.empty() || o.paired.verdict != Verdict::SLOWER) continue;
    const Outcome again = measure_comparison(rows[i], flags);
    if (!again.error.empty()) {
      o.error = "recheck: " + again.error;
      continue;
    }
    o.recheck = again.paired;
  }

  std::printf("\nmachine: %s (%s), tunekit_cpu path %s, %u threads\n", cpu.model_name.c_str(),
              platform::identity_string(cpu).c_str(), std::string(cpu::to_string(cpu::active_isa())).c_str(),
              static_cast<unsigned>(options.execution->effective_threads));
  std::printf("ratio = median over %d interleaved pairs of default ms / calibrated ms; low-high = the second smallest "
              "and second largest pair ratio; SLOWER when high < 0.95, faster when low > 1.05; a SLOWER row is timed again "
              "after all rows and stays SLOWER only if that recheck is SLOWER too\n",
              flags.repetitions);
  std::fflush(stdout);
  print_table(rows, outcomes);
  for (const tuning::KeyOutcome& n : report.not_calibrated) {
    fmt::print("not calibrated: {}: {}\n", n.key.to_string(), n.reason);
  }
  int code = 0;
  std::size_t slower = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran && !o.error.empty()) code = 1;
    if (o.ran && o.error.empty() && o.verdict() == Verdict::SLOWER) ++slower;
  }
  fmt::print("{} of {} rows SLOWER beyond noise\n", slower, rows.size());
  if (flags.fail_on_slower && slower > 0) code = 1;
  return code;
}

}  // namespace
}  // namespace tunekit::bench

int main(int argc, char** argv) { return tunekit::bench::run(argc, argv); }
