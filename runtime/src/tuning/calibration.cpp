// The calibration batch: choose keys, run callbacks with budgets and a
// reporter, validate, then publish everything at once.
#include "tunekit/tuning/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "tunekit/core/log.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/measure/timed_run_loop.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::tuning {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

// A profile measured with 3 threads must resolve for 3-thread sessions,
// never for the wider execution it was capped from.
platform::CpuExecutionDescriptor calibration_execution(const CalibrationOptions& options) {
  std::optional<std::uint32_t> request;
  if (options.maximum_threads > 0) request = options.maximum_threads;
  platform::CpuExecutionDescriptor execution =
      options.execution ? *options.execution : platform::detect_execution_descriptor(request);
  if (request && *request < execution.effective_threads) {
    execution.effective_threads = *request;
    execution.requested_threads = request;
  }
  return execution;
}

namespace {

bool has_compatible_calibration(const RegistryGeneration& generation, const KernelTuningKey& key,
                                const platform::CpuExecutionDescriptor& execution) {
  const std::string identity = platform::execution_identity_string(execution);
  for (const CalibratedKernelProfile& p : generation.calibrated_profiles(key)) {
    if (platform::execution_identity_string(p.execution) == identity) return true;
  }
  return false;
}

}  // namespace

double required_margin_for(const CalibrationOptions& options, std::uint32_t baseline_threads,
                           std::uint32_t candidate_threads) noexcept {
  if (candidate_threads <= baseline_threads) return options.required_margin;
  return std::max(options.required_margin, options.parallel_margin);
}

TuningValue kept_value(const CalibrationContext& context, const std::string& parameter,
                       const TuningValue& portable_default) {
  if (context.incumbent != nullptr) {
    if (auto it = context.incumbent->values.find(parameter); it != context.incumbent->values.end()) return it->second;
  }
  return portable_default;
}

std::string kept_label(const CalibrationContext& context, const std::string& parameter) {
  const bool committed = context.incumbent != nullptr && context.incumbent->values.count(parameter) > 0;
  return committed ? "committed value kept" : "portable default kept";
}

CalibrationBudget::CalibrationBudget(const CalibrationOptions& options, std::uint32_t threads)
    : start_(Clock::now()),
      time_budget_(options.time_budget),
      memory_bytes_(options.memory_budget_bytes),
      threads_(threads) {}

bool CalibrationBudget::time_left() const noexcept { return Clock::now() - start_ < time_budget_; }

std::chrono::milliseconds CalibrationBudget::elapsed() const noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
}

Error CalibrationBudget::admit(std::size_t bytes, std::uint32_t threads) const {
  if (!time_left()) {
    return {ErrorCode::BAD_STATE, fmt::format("time budget of {} ms exhausted", time_budget_.count())};
  }
  if (bytes > memory_bytes_) {
    return {ErrorCode::BAD_STATE, fmt::format("needs {} bytes, above the memory budget of {} bytes", bytes, memory_bytes_)};
  }
  if (threads > threads_) {
    return {ErrorCode::BAD_STATE, fmt::format("needs {} threads, above the thread budget of {}", threads, threads_)};
  }
  return Error::ok();
}

namespace {

measure::BatchedSamplerOptions calibration_sampler_options() {
  measure::BatchedSamplerOptions options;
  options.clock_resolution_s = platform::steady_clock_resolution_seconds();
  // Samples of at least 50 us: ten clock ticks alone would be a few hundred
  // nanoseconds, where one interrupt or a sleeping thread pool decides the
  // median.
  options.resolution_multiple = std::max(10.0, 50e-6 / options.clock_resolution_s);
  options.log_prefix = "calibrate:";
  return options;
}

double seconds_now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

}  // namespace

Result<std::vector<double>> measure_repetitions(const std::function<Error()>& run, int repetitions) {
  TUNEKIT_RETURN_IF_ERROR(measure::run_warmup(1, run));
  measure::BatchedSampler sampler(seconds_now, run, {}, calibration_sampler_options());
  measure::MeasureConfig config;
  config.strategy = measure::Strategy::FIXED_AVERAGE;
  config.warmup_iterations = 0;
  config.timed_iterations = std::max(repetitions, 5);
  measure::MeasureOutcome outcome = measure::run_timed_loop(config, sampler.time_once());
  if (outcome.failed) return Error(outcome.error_code, outcome.message);
  return outcome.samples;
}

Result<std::vector<std::vector<double>>> measure_interleaved(const std::vector<std::function<Error()>>& runs,
                                                             int rounds, const std::function<bool()>& keep_going) {
  if (rounds < 1) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("measure_interleaved: {} rounds; at least 1 is needed", rounds));
  }
  std::vector<std::unique_ptr<measure::BatchedSampler>> samplers;
  samplers.reserve(runs.size());
  for (const std::function<Error()>& run : runs) {
    TUNEKIT_RETURN_IF_ERROR(measure::run_warmup(1, run));
    samplers.push_back(std::make_unique<measure::BatchedSampler>(seconds_now, run, measure::BatchedSampler::Synchronize{},
                                                                 calibration_sampler_options()));
  }
  std::vector<std::vector<double>> samples(runs.size());
  for (int round = 0; round < rounds; ++round) {
    if (round > 0 && keep_going && !keep_going()) break;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::size_t r = (i + static_cast<std::size_t>(round)) % runs.size();
      Result<double> ms = samplers[r]->sample();
      if (!ms.ok()) return ms.error();
      samples[r].push_back(*ms);
    }
  }
  return samples;
}

KernelCalibrationRegistry& KernelCalibrationRegistry::global() {
  static KernelCalibrationRegistry registry;
  return registry;
}

void KernelCalibrationRegistry::register_function(const KernelTuningKey& key, KernelCalibrationFunction function,
                                                  std::string library_version) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const Entry& e) { return e.key == key; });
  entries_.push_back({key, std::move(function), std::move(library_version)});
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
}

std::vector<KernelCalibrationRegistry::Entry> KernelCalibrationRegistry::entries() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

void RegisterKernelCalibrationFunction(const KernelTuningKey& key, KernelCalibrationFunction function,
                                       std::string library_version) {
  KernelCalibrationRegistry::global().register_function(key, std::move(function), std::move(library_version));
}

std::vector<CalibratedKernelProfile> CalibrationBatchReport::successful_profiles() const {
  std::vector<CalibratedKernelProfile> profiles;
  for (const CalibratedKey& c : calibrated) profiles.push_back(c.profile);
  return profiles;
}

std::string CalibrationBatchReport::to_json() const {
  nlohmann::json j;
  nlohmann::json calibrated_json = nlohmann::json::array();
  for (const CalibratedKey& c : calibrated) {
    // The key's report is JSON text from CalibrationReporter; anything else
    // (a report filled in by other code) is kept as the string it is.
    nlohmann::json report = nlohmann::json::parse(c.report_json, nullptr, false);
    if (report.is_discarded()) report = c.report_json;
    calibrated_json.push_back({{"key", c.profile.parameters.key.to_string()},
                               {"profile", c.profile.name},
                               {"digest", c.profile.report_digest},
                               {"report", std::move(report)}});
  }
  auto outcomes = [](const std::vector<KeyOutcome>& list) {
    nlohmann::json a = nlohmann::json::array();
    for (const KeyOutcome& o : list) {
      nlohmann::json entry{{"key", o.key.to_string()}, {"reason", o.reason}};
      // What was measured before every value was kept.
      if (!o.report_json.empty()) {
        nlohmann::json report = nlohmann::json::parse(o.report_json, nullptr, false);
        if (!report.is_discarded()) entry["report"] = std::move(report);
      }
      a.push_back(std::move(entry));
    }
    return a;
  };
  j["calibrated"] = std::move(calibrated_json);
  j["skipped"] = outcomes(skipped);
  j["unsupported"] = outcomes(unsupported);
  j["not_calibrated"] = outcomes(not_calibrated);
  j["published_generation"] = published_generation;
  j["build_type"] = build_type.empty() ? std::string("unknown") : build_type;
  return internal::json_text(j, 2);
}

CalibrationBatchReport CalibrateKernelThresholds(std::span<const KernelTuningKey> keys,
                                                 const CalibrationOptions& options,
                                                 const KernelCalibrationRegistry* functions) {
  KernelTuningRegistry& registry = options.registry ? *options.registry : KernelTuningRegistry::global();
  const KernelCalibrationRegistry& callbacks = functions ? *functions : KernelCalibrationRegistry::global();
  const std::vector<KernelCalibrationRegistry::Entry> entries = callbacks.entries();
  const platform::CpuExecutionDescriptor execution = calibration_execution(options);
  const std::uint32_t threads = execution.effective_threads;
  const platform::PowerPolicy power =
      options.power_policy ? *options.power_policy : platform::detect_power_policy();
  auto generation = registry.snapshot();
  CalibrationBatchReport report;
  report.build_type = options.build_type;

  for (const KernelTuningKey& key : keys) {
    auto notify = [&](std::string_view event) {
      if (options.progress) options.progress(key, event);
    };
    // The run's deadline bounds the key's own budget, and a key it leaves
    // no time for is not started (a later run continues with it).
    CalibrationOptions key_options = options;
    if (options.deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*options.deadline - Clock::now());
      if (left.count() <= 0) {
        report.not_calibrated.push_back({key, kRunBudgetSpent});
        notify("not_calibrated");
        continue;
      }
      key_options.time_budget = std::min(options.time_budget, left);
    }
    notify("start");
    const KernelTuningSchema* schema = generation->schema(key);
    auto entry = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.key == key; });
    if (schema == nullptr || entry == entries.end()) {
      report.unsupported.push_back(
          {key, schema == nullptr ? "no schema is registered for this key" : "no calibration function is registered"});
      notify("unsupported");
      continue;
    }
    CalibrationReporter reporter(key, execution, threads);
    reporter.set_power_policy(power);
    const auto incumbent = std::find_if(options.incumbents.begin(), options.incumbents.end(),
                                        [&](const KernelTuningParameters& p) { return p.key == key; });
    CalibrationContext context{key_options, execution, CalibrationBudget(key_options, threads), reporter,
                               incumbent == options.incumbents.end() ? nullptr : &*incumbent};
    log::info("calibrate: {} on {} thread(s)", key.to_string(), threads);
    const Clock::time_point start = Clock::now();
    KernelTuningParameters values = entry->function(key, context);  // exceptions propagate
    reporter.set_elapsed(Clock::now() - start);
    if (reporter.unsupported()) {
      report.unsupported.push_back({key, reporter.unsupported_reason()});
      notify("unsupported");
      continue;
    }
    if (values.values.empty()) {
      std::string reason = reporter.kept_defaults_summary();
      log::info("calibrate: {} not calibrated: {}", key.to_string(), reason);
      report.not_calibrated.push_back({key, std::move(reason), reporter.to_json()});
      notify("not_calibrated");
      continue;
    }
    values.key = key;
    Error valid = schema->validate(values);
    if (valid.is_bad()) {
      throw TuningError(fmt::format("calibration of {} returned invalid values: {}", key.to_string(), valid.message()));
    }
    CalibratedKernelProfile profile;
    profile.parameters = std::move(values);
    profile.execution = execution;
    profile.report_digest = reporter.digest();
    profile.library_version = entry->library_version;
    profile.name = fmt::format("calibrated:{}@{}", key.to_string(), profile.report_digest.substr(0, 16));
    report.calibrated.push_back({std::move(profile), reporter.to_json()});
    log::info("calibrate: {} done in {} ms: {}", key.to_string(),
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(),
              report.calibrated.back().profile.parameters.to_string());
    notify("calibrated");
  }

  if (!report.calibrated.empty()) {
    Error published = registry.try_publish_calibrated(report.successful_profiles());
    if (published.is_bad()) throw TuningError("calibration results could not be published: " + published.message());
    report.published_generation = registry.generation_number();
  }
  return report;
}

namespace {

std::vector<KernelTuningKey> selected_keys(const KernelCalibrationSelection& selection,
                                           const RegistryGeneration& generation,
                                           const KernelCalibrationRegistry& callbacks) {
  std::vector<KernelTuningKey> keys;
  for (const KernelTuningKey& key : generation.keys()) {
    if (selection.selects(key)) keys.push_back(key);
  }
  for (const auto& e : callbacks.entries()) {
    if (selection.selects(e.key) && std::find(keys.begin(), keys.end(), e.key) == keys.end()) keys.push_back(e.key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::vector<KernelTuningKey> SelectedCalibrationKeys(const KernelCalibrationSelection& selection,
                                                     const KernelTuningRegistry& registry,
                                                     const KernelCalibrationRegistry& functions) {
  return selected_keys(selection, *registry.snapshot(), functions);
}

CalibrationBatchReport CalibrateRegisteredKernels(const KernelCalibrationSelection& selection,
                                                  const CalibrationOptions& options,
                                                  const KernelCalibrationRegistry* functions) {
  KernelTuningRegistry& registry = options.registry ? *options.registry : KernelTuningRegistry::global();
  const KernelCalibrationRegistry& callbacks = functions ? *functions : KernelCalibrationRegistry::global();
  auto generation = registry.snapshot();
  const std::vector<KernelTuningKey> keys = selected_keys(selection, *generation, callbacks);

  CalibrationBatchReport skipped_only;
  if (selection.only_missing) {
    const platform::CpuExecutionDescriptor execution = calibration_execution(options);
    CalibrationOptions fixed = options;
    fixed.execution = execution;  // detect once: the same execution decides skips and calibrates
    std::vector<KernelTuningKey> missing;
    for (const KernelTuningKey& key : keys) {
      if (has_compatible_calibration(*generation, key, execution)) {
        skipped_only.skipped.push_back({key, "a compatible calibrated profile is already loaded"});
        if (options.progress) options.progress(key, "skipped");
      } else {
        missing.push_back(key);
      }
    }
    CalibrationBatchReport report = CalibrateKernelThresholds(missing, fixed, &callbacks);
    report.skipped = std::move(skipped_only.skipped);
    return report;
  }
  return CalibrateKernelThresholds(keys, options, &callbacks);
}

}  // namespace tunekit::tuning
