// Calibration: trusted callbacks registered by kernel libraries measure the
// real kernels on this machine and return parameter values. A batch runs the
// selected callbacks and publishes every result in one new registry
// generation only after all of them succeeded; callback and validation
// exceptions propagate. Nothing ever starts calibration implicitly.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tunekit/tuning/calibration_reporter.hpp"
#include "tunekit/tuning/kernel_calibration_selection.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::tuning {

struct CalibrationOptions {
  // Per key: a candidate that would run past it is skipped and reported.
  std::chrono::milliseconds time_budget{10'000};
  // Bytes of inputs and outputs one candidate may allocate.
  std::size_t memory_budget_bytes = std::size_t{512} << 20;
  // Upper bound of threads a candidate may use; 0: the effective threads.
  // A cap below the execution's effective threads lowers them: the profile
  // is recorded (and cached) for the execution it was measured on.
  std::uint32_t maximum_threads = 0;
  std::uint64_t seed = 0x7E5EC0DE;
  int repetitions = 5;  // measurements per candidate; fewer than 5 are raised to 5
  double required_margin = 0.05;
  // A path that runs on more threads than the one it would replace must
  // win by at least this much: it occupies threads the rest of a program
  // could use, and near a parallel crossover the gain is small while a
  // shared machine's thread wake-ups vary by more than 5% between runs.
  double parallel_margin = 0.15;
  // The execution to calibrate for, before the maximum_threads cap;
  // detected when not given.
  std::optional<platform::CpuExecutionDescriptor> execution;
  // The power policy the reports record (diagnostics only, never matched);
  // read from cpufreq when the batch starts when not given.
  std::optional<platform::PowerPolicy> power_policy;
  // The build type the kernels were compiled in ("Release", "none" for a
  // build without one), recorded in the report so that a review sees
  // thresholds measured on unoptimised code; empty when not known.
  std::string build_type;
  // Values committed profiles hold for keys on this execution (calibrate
  // --keep-unless-faster, tunekit check --profiles): a key's calibration
  // starts from its entry here instead of the portable defaults, and keeps
  // each of its values unless a measured challenger beats it by the margin.
  std::vector<KernelTuningParameters> incumbents;
  // The end of the whole run (calibrate --total-time-budget): a key not
  // started by then is not calibrated (kRunBudgetSpent), and every key's
  // time budget ends there at the latest; none: no limit besides the keys'.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Where results are published; the global registry when null.
  KernelTuningRegistry* registry = nullptr;
  // Called when a key starts and ends ("start", "calibrated", "skipped",
  // "unsupported", "not_calibrated"), for progress display.
  std::function<void(const KernelTuningKey&, std::string_view event)> progress;
};

// The reason of a key the run's deadline left out.
inline constexpr const char* kRunBudgetSpent = "not started: the run's time budget ran out";

// The margin a candidate must win by against a baseline: the parallel
// margin (when larger) for a candidate on more threads than the baseline,
// the required margin otherwise.
double required_margin_for(const CalibrationOptions& options, std::uint32_t baseline_threads,
                           std::uint32_t candidate_threads) noexcept;

// The budgets of one key's calibration, given to callbacks through the
// reporter's owner (CalibrationContext).
class CalibrationBudget {
 public:
  CalibrationBudget(const CalibrationOptions& options, std::uint32_t threads);
  bool time_left() const noexcept;
  std::chrono::milliseconds elapsed() const noexcept;
  bool fits_memory(std::size_t bytes) const noexcept { return bytes <= memory_bytes_; }
  std::uint32_t threads() const noexcept { return threads_; }
  // Ok, or an error naming the budget a candidate of `bytes` and `threads` would exceed.
  Error admit(std::size_t bytes, std::uint32_t threads) const;

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds time_budget_;
  std::size_t memory_bytes_;
  std::uint32_t threads_;
};

// Everything a callback needs besides the key.
struct CalibrationContext {
  const CalibrationOptions& options;
  const platform::CpuExecutionDescriptor& execution;
  CalibrationBudget budget;
  CalibrationReporter& reporter;
  // The key's entry of options.incumbents; null: start from the portable defaults.
  const KernelTuningParameters* incumbent = nullptr;
};

// What a calibration keeps for `parameter` when no challenger beats it: the
// incumbent's value when it holds one, else `portable_default`.
TuningValue kept_value(const CalibrationContext& context, const std::string& parameter,
                       const TuningValue& portable_default);
// The reason's opening for such a value: "committed value kept" when the
// incumbent holds the parameter, else "portable default kept".
std::string kept_label(const CalibrationContext& context, const std::string& parameter);

// Returns the values it measured (a partial set is fine: the rest keep their
// defaults), or throws. Only measured values: a default kept because the
// budget ran out or the measurements overlapped is left out, so that a later
// `only_missing` run measures it again. A callback that measured nothing
// returns an empty set and the key is reported not calibrated, with the
// reasons its reporter selected. A callback that cannot run here calls
// reporter.mark_unsupported(reason) and returns an empty set.
using KernelCalibrationFunction = std::function<KernelTuningParameters(const KernelTuningKey& key,
                                                                       CalibrationContext& context)>;

// Median-of-repetitions timing shared by callbacks: warms up once, batches
// executions so that each timed sample lasts at least 50 us (and ten clock
// ticks), returns one sample per repetition in milliseconds per execution.
Result<std::vector<double>> measure_repetitions(const std::function<Error()>& run, int repetitions);

// Interleaved timing of runs that are to be compared with each other: each
// run is warmed up once, then every round takes one sample of every run
// (batched as measure_repetitions does, in milliseconds per execution), the
// round starting one run further each time, so that a slow phase of a
// shared machine falls on all of them rather than on whichever was being
// timed. samples[run][round]. `keep_going`, asked before every round after
// the first, ends the measurement early (a spent time budget); the first
// error stops it and is returned. Rounds below 1: INVALID_VALUE.
Result<std::vector<std::vector<double>>> measure_interleaved(const std::vector<std::function<Error()>>& runs,
                                                             int rounds,
                                                             const std::function<bool()>& keep_going = {});

class KernelCalibrationRegistry {
 public:
  static KernelCalibrationRegistry& global();
  // Replaces an earlier function for the same key.
  void register_function(const KernelTuningKey& key, KernelCalibrationFunction function,
                         std::string library_version = {});
  struct Entry {
    KernelTuningKey key;
    KernelCalibrationFunction function;
    std::string library_version;
  };
  std::vector<Entry> entries() const;  // sorted by key

 private:
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

void RegisterKernelCalibrationFunction(const KernelTuningKey& key, KernelCalibrationFunction function,
                                       std::string library_version = {});

struct CalibratedKey {
  CalibratedKernelProfile profile;
  std::string report_json;
};

struct KeyOutcome {
  KernelTuningKey key;
  std::string reason;
  // A key that was measured but kept every value: its calibration report
  // (JSON, as CalibratedKey::report_json); empty otherwise. (Initialised
  // here so that {key, reason} still names every other outcome.)
  std::string report_json = {};
};

struct CalibrationBatchReport {
  std::vector<CalibratedKey> calibrated;
  std::vector<KeyOutcome> skipped;      // only_missing and already calibrated here
  std::vector<KeyOutcome> unsupported;  // no schema, no function, or the callback declined
  // The callback ran but measured no value (budget, overlapping timings):
  // nothing is published or cached for these keys.
  std::vector<KeyOutcome> not_calibrated;
  std::uint64_t published_generation = 0;  // 0 when nothing was published
  std::string build_type;                  // CalibrationOptions::build_type ("unknown" in JSON when empty)

  std::vector<CalibratedKernelProfile> successful_profiles() const;
  std::string to_json() const;  // every key with its outcome and full report
};

// The execution a batch with these options calibrates for: options.execution
// (detected when not given) with the maximum_threads cap applied.
platform::CpuExecutionDescriptor calibration_execution(const CalibrationOptions& options);

// The keys CalibrateRegisteredKernels would calibrate, sorted: every key
// with a schema in `registry` or a function in `functions` that the
// selection selects (only_missing is not applied).
std::vector<KernelTuningKey> SelectedCalibrationKeys(const KernelCalibrationSelection& selection,
                                                     const KernelTuningRegistry& registry,
                                                     const KernelCalibrationRegistry& functions);

// Calibrates every key that has a registered function or schema and that
// the selection selects. Exceptions from callbacks and validation propagate
// (TuningError for validation) and leave the registry unchanged.
CalibrationBatchReport CalibrateRegisteredKernels(const KernelCalibrationSelection& selection = {},
                                                  const CalibrationOptions& options = {},
                                                  const KernelCalibrationRegistry* functions = nullptr);

// The same for an exact list of keys.
CalibrationBatchReport CalibrateKernelThresholds(std::span<const KernelTuningKey> keys,
                                                 const CalibrationOptions& options = {},
                                                 const KernelCalibrationRegistry* functions = nullptr);

}  // namespace tunekit::tuning
