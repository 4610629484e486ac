#include "check_profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "exit_codes.hpp"
#include "processor_profile.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cli {
namespace {

using nlohmann::json;

// What became of one committed value (or of a key that could not be checked).
struct ValueCheck {
  std::string key;
  std::string parameter;  // empty for a key-wide outcome
  std::string outcome;    // "unchanged", "changed", "added", "failed"
  std::string committed;  // the committed value's text; empty for "added"
  std::string measured;   // the value the calibration chose
  std::string reason;
};

// The calibration's reason for each parameter it selected, from its report.
std::map<std::string, std::pair<std::string, std::string>> selections(const std::string& report_json) {
  std::map<std::string, std::pair<std::string, std::string>> out;  // parameter -> (value, reason)
  const json report = json::parse(report_json, nullptr, false);
  if (!report.is_object() || !report.contains("selected") || !report["selected"].is_array()) return out;
  for (const json& s : report["selected"]) {
    if (!s.is_object() || !s.contains("parameter") || !s["parameter"].is_string()) continue;
    const std::string reason = s.contains("reason") && s["reason"].is_string() ? s["reason"].get<std::string>() : "";
    out[s["parameter"].get<std::string>()] = {s.contains("value") ? s["value"].dump() : "", reason};
  }
  return out;
}

void check_calibrated(const tuning::KernelTuningParameters& committed, const tuning::CalibratedKey& calibrated,
                      std::vector<ValueCheck>& checks) {
  const std::string key = committed.key.to_string();
  const auto reasons = selections(calibrated.report_json);
  const auto reason_of = [&](const std::string& parameter) {
    auto it = reasons.find(parameter);
    return it == reasons.end() ? std::string() : it->second.second;
  };
  const auto& measured = calibrated.profile.parameters.values;
  for (const auto& [parameter, value] : committed.values) {
    auto it = measured.find(parameter);
    if (it == measured.end() || it->second == value) {
      checks.push_back({key, parameter, "unchanged", value.to_text(), value.to_text(), reason_of(parameter)});
    } else {
      checks.push_back({key, parameter, "changed", value.to_text(), it->second.to_text(), reason_of(parameter)});
    }
  }
  for (const auto& [parameter, value] : measured) {
    if (committed.values.count(parameter) == 0) {
      checks.push_back({key, parameter, "added", "", value.to_text(), reason_of(parameter)});
    }
  }
}

json to_json(const ValueCheck& c) {
  json j{{"key", c.key}, {"outcome", c.outcome}, {"reason", c.reason}};
  if (!c.parameter.empty()) j["parameter"] = c.parameter;
  if (!c.committed.empty()) j["committed"] = c.committed;
  if (!c.measured.empty()) j["measured"] = c.measured;
  return j;
}

}  // namespace

int run_profile_check(const ProfileCheckOptions& o) {
  tuning::CalibrationOptions options;
  options.time_budget = std::chrono::milliseconds(static_cast<std::int64_t>(o.key_time_budget_seconds * 1000));
  options.required_margin = o.margin_percent / 100.0;
  options.parallel_margin = std::max(options.parallel_margin, options.required_margin);
  options.execution = tuning::calibration_execution(options);
  const platform::CpuExecutionDescriptor& execution = *options.execution;

  const std::vector<std::filesystem::path> folders(o.folders.begin(), o.folders.end());
  const std::vector<tuning::KernelTuningKey> keys = tuning::SelectedCalibrationKeys(
      {}, tuning::KernelTuningRegistry::global(), tuning::KernelCalibrationRegistry::global());
  CoverageReport coverage = find_coverage(folders, keys, execution);
  for (const std::string& reason : coverage.unreadable) {
    fmt::print(stderr, "tunekit check: {}\n", core::replace_invalid_utf8(reason));
  }
  if (!coverage.unreadable.empty()) return kBadInput;
  const std::string machine = fmt::format("{} ({}), {} threads", execution.processor.model_name,
                                          platform::identity_string(execution.processor),
                                          execution.effective_threads);
  if (coverage.covered.empty()) {
    fmt::print(stderr, "tunekit check: no profile in {} covers a calibrated key on this machine: {}\n",
               core::replace_invalid_utf8(fmt::format("{}", fmt::join(o.folders, ", "))), machine);
    return kSuccess;
  }

  std::vector<tuning::KernelTuningKey> covered_keys;
  for (Coverage& c : coverage.covered) {
    covered_keys.push_back(c.key);
    options.incumbents.push_back(c.parameters);
    fmt::print(stderr, "check: {} from profile '{}' of {}\n", c.key.to_string(), c.profile,
               core::replace_invalid_utf8(c.file));
  }
  tuning::CalibrationBatchReport report;
  try {
    report = tuning::CalibrateKernelThresholds(covered_keys, options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "tunekit check: calibration failed: {}\n", e.what());
    return kTuningFailure;
  }

  std::vector<ValueCheck> checks;
  for (const Coverage& c : coverage.covered) {
    const tuning::KernelTuningParameters& committed = c.parameters;
    const auto calibrated = std::find_if(report.calibrated.begin(), report.calibrated.end(), [&](const auto& k) {
      return k.profile.parameters.key == c.key;
    });
    if (calibrated != report.calibrated.end()) {
      check_calibrated(committed, *calibrated, checks);
      continue;
    }
    const auto kept = std::find_if(report.not_calibrated.begin(), report.not_calibrated.end(),
                                   [&](const tuning::KeyOutcome& k) { return k.key == c.key; });
    if (kept != report.not_calibrated.end()) {  // every value kept: nothing beat them
      for (const auto& [parameter, value] : committed.values) {
        checks.push_back({c.key.to_string(), parameter, "unchanged", value.to_text(), value.to_text(), kept->reason});
      }
      continue;
    }
    std::string reason = "the key was not calibrated";
    for (const auto* list : {&report.unsupported, &report.skipped}) {
      for (const tuning::KeyOutcome& k : *list) {
        if (k.key == c.key) reason = k.reason;
      }
    }
    checks.push_back({c.key.to_string(), "", "failed", "", "", reason});
  }

  std::map<std::string, int> counts;
  for (const ValueCheck& c : checks) ++counts[c.outcome];
  if (o.json) {
    json out = json::array();
    for (const ValueCheck& c : checks) out.push_back(to_json(c));
    std::cout << internal::json_text(out, 2) << '\n';
  } else {
    fmt::print("{} on this machine, {} (margin {:g}%, {:g}% for more threads, confidence 95%):\n",
               core::replace_invalid_utf8(fmt::format("{}", fmt::join(o.folders, ", "))), machine,
               options.required_margin * 100, options.parallel_margin * 100);
    for (const ValueCheck& c : checks) {
      std::string what = c.key;
      if (!c.parameter.empty()) what += " " + c.parameter;
      if (c.outcome == "changed") {
        what += fmt::format(" {} -> {}", c.committed, c.measured);
      } else if (c.outcome == "added") {
        what += " = " + c.measured;
      } else if (!c.committed.empty()) {
        what += " = " + c.committed;
      }
      fmt::print("  {:<10} {}: {}\n", c.outcome, what, core::replace_invalid_utf8(c.reason));
    }
  }
  fmt::print(stderr,
             "tunekit check: {} keys: {} values unchanged, {} beaten by a challenger beyond the margin, {} added, {} "
             "keys failed\n",
             coverage.covered.size(), counts["unchanged"], counts["changed"], counts["added"], counts["failed"]);
  return counts["changed"] > 0 || counts["failed"] > 0 ? kTuningFailure : kSuccess;
}

}  // namespace tunekit::cli
