// Recording and JSON serialisation of a calibration.
#include "tunekit/tuning/calibration_reporter.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tunekit/core/hash.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/measure/statistics.hpp"

namespace tunekit::tuning {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json processor_json(const platform::CpuDescriptor& cpu) {
  return {{"architecture", cpu.architecture}, {"vendor", cpu.vendor},
          {"family", optional_json(cpu.family)}, {"model", optional_json(cpu.model)},
          {"stepping", optional_json(cpu.stepping)}, {"microarchitecture", cpu.microarchitecture},
          {"features", cpu.features.names()}, {"model_name", cpu.model_name},
          {"l1_data_bytes", optional_json(cpu.l1_data_bytes)}, {"l2_bytes", optional_json(cpu.l2_bytes)},
          {"l3_bytes", optional_json(cpu.l3_bytes)}, {"logical_cores", optional_json(cpu.logical_cores)},
          {"physical_cores", optional_json(cpu.physical_cores)}};
}

// Power fields are diagnostics; one the machine does not expose reads "unknown".
template <typename T>
nlohmann::json known_or_unknown(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json("unknown");
}

nlohmann::json power_json(const platform::PowerPolicy& p) {
  return {{"scaling_driver", known_or_unknown(p.scaling_driver)}, {"governor", known_or_unknown(p.governor)},
          {"energy_performance_preference", known_or_unknown(p.energy_performance_preference)},
          {"boost", known_or_unknown(p.boost)}, {"base_frequency_khz", known_or_unknown(p.base_frequency_khz)},
          {"max_frequency_khz", known_or_unknown(p.max_frequency_khz)}};
}

}  // namespace

CalibrationReporter::CalibrationReporter(KernelTuningKey key, platform::CpuExecutionDescriptor execution,
                                         std::uint32_t threads)
    : key_(std::move(key)), execution_(std::move(execution)), threads_(threads) {}

void CalibrationReporter::record_candidate(std::string parameter, std::string candidate, std::vector<double> samples_ms) {
  CandidateRecord r{std::move(parameter), std::move(candidate), std::move(samples_ms), 0, 0, 0};
  const measure::Summary s = measure::summarize(r.samples_ms);
  r.median_ms = s.median;
  r.mad_ms = s.mad;
  r.cov = s.cov;
  candidates_.push_back(std::move(r));
}

void CalibrationReporter::record_rejected(std::string parameter, std::string candidate, std::string reason) {
  rejected_.push_back({std::move(parameter), std::move(candidate), std::move(reason)});
}

void CalibrationReporter::record_crossover(const std::string& parameter, const CrossoverResult& result) {
  for (const CrossoverProbe& p : result.probes) {
    note(fmt::format("{}: size {} baseline {:.6g} ms (mad {:.3g}) candidate {:.6g} ms (mad {:.3g}), ratio {:.3f} "
                     "[{:.3f}, {:.3f}]: {}",
                     parameter, p.size, p.baseline_median, p.baseline_mad, p.candidate_median, p.candidate_mad,
                     p.ratio, p.ratio_low, p.ratio_high, to_string(p.verdict)));
  }
  note(parameter + ": " + result.reason);
}

void CalibrationReporter::select(std::string parameter, TuningValue value, std::string reason) {
  selected_.push_back({std::move(parameter), std::move(value), std::move(reason)});
}

void CalibrationReporter::note(std::string text) { notes_.push_back(std::move(text)); }

std::string CalibrationReporter::kept_defaults_summary() const {
  if (selected_.empty()) return "the callback returned no measured value";
  std::string summary;
  for (const SelectedValue& s : selected_) {
    if (!summary.empty()) summary += "; ";
    summary += s.parameter + ": " + s.reason;
  }
  return summary;
}

void CalibrationReporter::mark_unsupported(std::string reason) {
  unsupported_reason_ = reason.empty() ? std::string("unsupported") : std::move(reason);
}

std::string CalibrationReporter::to_json() const {
  nlohmann::json j;
  j["key"] = {{"library", key_.library}, {"kernel", key_.kernel}, {"implementation", key_.implementation},
              {"element_type", core::to_string(key_.element_type)}, {"device", platform::to_string(key_.device)},
              {"tuning_abi", key_.tuning_abi}};
  j["tunekit_version"] = kVersion;
  j["tuning_abi"] = key_.tuning_abi;
  j["threads"] = threads_;
  j["processor"] = processor_json(execution_.processor);
  j["execution"] = {{"effective_threads", execution_.effective_threads},
                    {"numa_policy", execution_.numa_policy.to_string()},
                    {"affinity", execution_.affinity.to_string()},
                    {"identity", platform::execution_identity_string(execution_)}};
  j["power"] = power_json(power_);
  nlohmann::json candidates = nlohmann::json::array();
  for (const CandidateRecord& c : candidates_) {
    candidates.push_back({{"parameter", c.parameter}, {"candidate", c.candidate}, {"samples_ms", c.samples_ms},
                          {"median_ms", c.median_ms}, {"mad_ms", c.mad_ms}, {"cov", c.cov}});
  }
  j["candidates"] = std::move(candidates);
  nlohmann::json rejected = nlohmann::json::array();
  for (const RejectedRecord& r : rejected_) {
    rejected.push_back({{"parameter", r.parameter}, {"candidate", r.candidate}, {"reason", r.reason}});
  }
  j["rejected"] = std::move(rejected);
  nlohmann::json selected = nlohmann::json::array();
  for (const SelectedValue& s : selected_) {
    selected.push_back({{"parameter", s.parameter}, {"value", internal::value_to_json(s.value)}, {"reason", s.reason}});
  }
  j["selected"] = std::move(selected);
  j["notes"] = notes_;
  if (unsupported()) j["unsupported"] = unsupported_reason_;
  j["elapsed_ms"] = std::chrono::duration<double, std::milli>(elapsed_).count();
  return internal::json_text(j, 2);
}

std::string CalibrationReporter::digest() const { return core::hash128(to_json()).to_hex(); }

}  // namespace tunekit::tuning
