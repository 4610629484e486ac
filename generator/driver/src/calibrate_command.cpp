// Calibration from the command line: selection flags, budgets, progress per
// key on standard error, a JSON report, and the cache load/update around it.
#include "calibrate_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "calibrate_isolated.hpp"
#include "calibrate_options.hpp"
#include "exit_codes.hpp"
#include "processor_profile.hpp"
#include "progress_bar.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/platform/hip_device.hpp"
#include "tunekit/tuning/calibration.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::cli {
namespace {

// Debug builds and builds without a build type compile without optimisation
// (unless their flags say otherwise, which the configure-time check of
// calibrate_kernels() reads).
bool unoptimised_build_type(const std::string& build_type) {
  return build_type == "none" || build_type == "Debug";
}

// Messages quote paths and arguments, which may be any bytes: printed as UTF-8.
int fail(int code, const std::string& message) {
  fmt::print(stderr, "tunekit calibrate: {}\n", core::replace_invalid_utf8(message));
  return code;
}

// After a run whose --total-time-budget left keys not started: how to continue.
void say_the_run_budget_ran_out(const CalibrateOptions& o, std::size_t not_started) {
  if (not_started == 0) return;
  fmt::print(stderr, "tunekit calibrate: the run's time budget of {:g} s ran out: {} keys not started{}\n",
             o.total_time_budget_seconds, not_started,
             o.no_cache ? "" : "; the same command with --only-missing continues with the keys the cache does not hold");
}

int run_calibrate(const CalibrateOptions& o) {
  tuning::KernelCalibrationSelection selection;
  if (!o.library.empty()) selection.library = o.library;
  selection.kernels = o.kernels;
  selection.implementations = o.implementations;
  for (const std::string& name : o.element_types) {
    auto type = core::parse_data_type(name);
    if (!type) return fail(2, fmt::format("--element-type: unknown data type '{}'", name));
    selection.element_types.push_back(*type);
  }
  selection.only_missing = o.only_missing;
  if (o.device == "hip") {
    // HIP keys are measured on the GPU: without one there is nothing to measure on.
    const platform::HipProbe hip = platform::probe_hip_devices();
    if (hip.devices.empty()) return fail(1, fmt::format("--device hip: {}; nothing was calibrated", hip.reason));
    selection.device = platform::DeviceKind::HIP;
  }

  tuning::CalibrationOptions options;
  options.time_budget = std::chrono::milliseconds(static_cast<std::int64_t>(o.time_budget_seconds * 1000));
  if (o.total_time_budget_seconds > 0) {
    options.deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(o.total_time_budget_seconds));
  }
  options.memory_budget_bytes = o.memory_budget_mib << 20;
  options.maximum_threads = o.threads;
  options.seed = o.seed;
  options.build_type = o.build_type;
  if (unoptimised_build_type(o.build_type)) {
    fmt::print(stderr,
               "calibrate: warning: the kernels were built without optimisation (build type '{}'): the thresholds "
               "measured now describe unoptimised code; calibrate a Release or RelWithDebInfo build\n",
               o.build_type);
  }
  options.execution = platform::detect_execution_descriptor(
      o.threads > 0 ? std::optional<std::uint32_t>(o.threads) : std::nullopt);

  tuning::KernelTuningCacheOptions cache_options;
  if (!o.cache_path.empty()) cache_options.path = o.cache_path;
  cache_options.execution = options.execution;
  if (!o.no_cache && !o.isolate) {  // isolated children load it themselves
    tuning::KernelTuningCacheLoadReport loaded = tuning::LoadKernelTuningCache(selection, cache_options);
    fmt::print(stderr, "cache: {}\n", loaded.summary());
  }

  // Keys a committed profile already covers on this processor are left out
  // (calibrate_kernels(WHEN missing)); the execution is detected once.
  options.execution = tuning::calibration_execution(options);
  std::optional<std::vector<tuning::KernelTuningKey>> keys;
  if (!o.covering_folders.empty()) {
    const std::vector<std::filesystem::path> folders(o.covering_folders.begin(), o.covering_folders.end());
    const std::vector<tuning::KernelTuningKey> selected = tuning::SelectedCalibrationKeys(
        selection, tuning::KernelTuningRegistry::global(), tuning::KernelCalibrationRegistry::global());
    CoverageReport coverage = find_coverage(folders, selected, *options.execution);
    for (const std::string& reason : coverage.unreadable) {
      fmt::print(stderr, "calibrate: {} (it covers nothing)\n", reason);
    }
    for (const Coverage& c : coverage.covered) {
      fmt::print("covered     {}  by profile '{}' of {}\n", c.key.to_string(), c.profile,
                 core::replace_invalid_utf8(c.file));
    }
    keys = std::move(coverage.uncovered);
  }

  // Committed values each key starts from and keeps unless beaten
  // (--keep-unless-faster).
  if (!o.incumbent_folders.empty()) {
    const std::vector<std::filesystem::path> folders(o.incumbent_folders.begin(), o.incumbent_folders.end());
    const std::vector<tuning::KernelTuningKey> selected =
        keys ? *keys
             : tuning::SelectedCalibrationKeys(selection, tuning::KernelTuningRegistry::global(),
                                               tuning::KernelCalibrationRegistry::global());
    CoverageReport committed = find_coverage(folders, selected, *options.execution);
    for (const std::string& reason : committed.unreadable) {
      fmt::print(stderr, "calibrate: {} (its values are not kept)\n", reason);
    }
    for (Coverage& c : committed.covered) {
      if (!o.isolate) {  // an isolated child says it itself
        fmt::print("committed   {}  {} (profile '{}' of {})\n", c.key.to_string(), c.parameters.to_string(),
                   c.profile, core::replace_invalid_utf8(c.file));
      }
      options.incumbents.push_back(std::move(c.parameters));
    }
  }

  // Progress per key: a bar on a terminal, a line per key otherwise.
  const std::size_t total = keys ? keys->size()
                                 : tuning::SelectedCalibrationKeys(selection, tuning::KernelTuningRegistry::global(),
                                                                   tuning::KernelCalibrationRegistry::global())
                                       .size();
  auto progress = std::make_shared<ProgressBar>("keys", total);
  options.progress = [progress](const tuning::KernelTuningKey& key, std::string_view event) {
    if (event == "start") {
      progress->start(key.to_string());
    } else {
      progress->finish(key.to_string(), event);
    }
  };

  if (o.isolate) {
    const std::vector<tuning::KernelTuningKey> selected =
        keys ? *keys
             : tuning::SelectedCalibrationKeys(selection, tuning::KernelTuningRegistry::global(),
                                               tuning::KernelCalibrationRegistry::global());
    if (selected.empty() && !keys) {
      fmt::print(stderr, "tunekit calibrate: the selection ({}) selects no registered kernel\n",
                 core::replace_invalid_utf8(selection.to_string()));
    }
    std::size_t not_started = 0;
    const int code = calibrate_isolated(o, selected, *options.execution, options.deadline, not_started);
    say_the_run_budget_ran_out(o, not_started);
    return code;
  }
  tuning::CalibrationBatchReport report;
  try {
    report = keys ? tuning::CalibrateKernelThresholds(*keys, options)
                  : tuning::CalibrateRegisteredKernels(selection, options);
  } catch (const std::exception& e) {
    return fail(1, fmt::format("calibration failed, nothing was published or stored: {}", e.what()));
  }
  progress->clear();
  for (const tuning::CalibratedKey& c : report.calibrated) {
    fmt::print("calibrated  {}  {}\n", c.profile.parameters.key.to_string(), c.profile.parameters.to_string());
  }
  for (const tuning::KeyOutcome& s : report.skipped) fmt::print("skipped     {}  {}\n", s.key.to_string(), s.reason);
  for (const tuning::KeyOutcome& u : report.unsupported) {
    fmt::print("unsupported {}  {}\n", u.key.to_string(), u.reason);
  }
  for (const tuning::KeyOutcome& n : report.not_calibrated) {
    fmt::print("not calibrated: {}  {}\n", n.key.to_string(), n.reason);
  }
  if (report.calibrated.empty() && report.skipped.empty() && report.unsupported.empty() &&
      report.not_calibrated.empty() && !keys) {
    fmt::print(stderr, "tunekit calibrate: the selection ({}) selects no registered kernel\n",
               core::replace_invalid_utf8(selection.to_string()));
  }

  say_the_run_budget_ran_out(o, static_cast<std::size_t>(std::count_if(
                                    report.not_calibrated.begin(), report.not_calibrated.end(),
                                    [](const tuning::KeyOutcome& k) { return k.reason == tuning::kRunBudgetSpent; })));
  int code = 0;
  if (!o.report_path.empty()) {
    store::AtomicWriteOptions write;
    write.create_parent_folders = true;
    Error written = store::write_file_atomically(o.report_path, report.to_json() + "\n", write);
    if (written.is_bad()) code = fail(output_exit_code(written, kTuningFailure), written.message());
  }
  if (!o.profile_path.empty()) {
    const std::vector<tuning::KernelTuningProfile> profiles = processor_profiles(
        profile_values(report.calibrated, options.incumbents), *options.execution, o.profile_priority);
    store::AtomicWriteOptions write;
    write.create_parent_folders = true;
    Error written = store::write_file_atomically(
        o.profile_path, format_processor_profile_file(profiles, *options.execution, o.build_type), write);
    if (written.is_bad()) {
      code = fail(output_exit_code(written, kTuningFailure), written.message());
    } else {
      fmt::print(stderr, "profile: {} ({} keys, commit as {}.toml)\n", core::replace_invalid_utf8(o.profile_path),
                 profiles.size(), processor_profile_stem(*options.execution));
    }
  }
  if (!o.no_cache && !report.calibrated.empty()) {
    const std::vector<tuning::CalibratedKernelProfile> profiles = report.successful_profiles();
    tuning::KernelTuningCacheUpdateReport updated = tuning::UpdateKernelTuningCache(profiles, cache_options);
    fmt::print(stderr, "cache: {}\n", updated.summary());
    if (!updated.ok()) {
      code = fail(output_exit_code(updated.error, kTuningFailure), "the cache was not updated: " + updated.error.message());
    }
  }
  return code;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& exit_code, const std::string& build_type) {
  auto o = std::make_shared<CalibrateOptions>();
  o->build_type = build_type;
  CLI::App* c = app.add_subcommand("calibrate", "Calibrate the thresholds of the registered kernels on this machine");
  c->add_option("--library", o->library, "Only keys of this kernel library");
  c->add_option("--device", o->device,
                "Calibrate the keys of this device's kernels: cpu, or hip (on the first GPU; without one the run "
                "stops and says why)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "hip"}));
  c->add_option("--kernel", o->kernels, "Only these kernels (repeatable: values OR)");
  c->add_option("--implementation", o->implementations, "Only these implementations (repeatable)");
  c->add_option("--element-type", o->element_types, "Only these element types, e.g. float (repeatable)");
  auto* only_missing =
      c->add_flag("--only-missing", o->only_missing, "Skip keys that already have a calibrated profile for this execution");
  c->add_option("--time-budget", o->time_budget_seconds, "Seconds of measurement per key")
      ->check(CLI::PositiveNumber);
  c->add_option("--total-time-budget", o->total_time_budget_seconds,
                "Seconds for the whole run: each key's --time-budget ends there at the latest, keys not started by "
                "then are not calibrated (reported), and the same command with --only-missing continues")
      ->check(CLI::PositiveNumber);
  c->add_option("--memory-budget", o->memory_budget_mib, "MiB a candidate may allocate")->check(CLI::PositiveNumber);
  c->add_option("--threads", o->threads, "Calibrate for this many threads (0: all this process may use)");
  c->add_option("--seed", o->seed, "Seed of the synthetic inputs");
  c->add_option("--report", o->report_path, "Write the full calibration report as JSON to this file");
  c->add_option("--cache", o->cache_path, "Cache file (default: $TUNEKIT_CACHE_PATH or $XDG_CACHE_HOME/tunekit/kernel_tuning.toml)");
  c->add_flag("--no-cache", o->no_cache, "Neither load nor update the cache");
  c->add_option("--profile-out", o->profile_path,
                "Also write the calibrated keys as a processor profile of this processor and thread count");
  c->add_option("--profile-priority", o->profile_priority, "Priority of the written profiles")->capture_default_str();
  c->add_option("--unless-covered-by", o->covering_folders,
                "Profile folder (repeatable): keys one of its profiles covers on this processor are not calibrated")
      ->excludes(only_missing);
  c->add_option("--keep-unless-faster", o->incumbent_folders,
                "Profile folder (repeatable): each key starts from the values its profile of this processor holds "
                "and keeps each one unless a challenger is faster by the margin at 95% confidence; --profile-out "
                "then writes them with the calibrated ones")
      ->excludes("--unless-covered-by");
  c->add_flag("--isolate", o->isolate,
              "Calibrate each key in a child process of its own, so that a kernel that crashes, aborts or hangs "
              "leaves its key not calibrated (with its signal or --key-timeout) and the other keys go on");
  c->add_option("--key-timeout", o->key_timeout_seconds, "--isolate: seconds one key's process may take")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  c->callback([o, &exit_code] { exit_code = run_calibrate(*o); });
}

}  // namespace tunekit::cli
