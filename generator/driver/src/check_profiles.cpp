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

// Calibrates the covered keys from their committed values and appends what
// became of each value to `checks`; false (said on standard error) when the
// calibration threw.
bool calibrate_and_compare(const std::vector<Coverage>& covered, tuning::CalibrationOptions options,
                           std::vector<ValueCheck>& checks) {
  std::vector<tuning::KernelTuningKey> keys;
  options.incumbents.clear();
  for (const Coverage& c : covered) {
    keys.push_back(c.key);
    options.incumbents.push_back(c.parameters);
  }
  tuning::CalibrationBatchReport report;
  try {
    report = tuning::CalibrateKernelThresholds(keys, options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "tunekit check: calibration failed: {}\n", e.what());
    return false;
  }
  for (const Coverage& c : covered) {
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
  return true;
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

  for (const Coverage& c : coverage.covered) {
    fmt::print(stderr, "check: {} from profile '{}' of {}\n", c.key.to_string(), c.profile,
               core::replace_invalid_utf8(c.file));
  }
  std::vector<ValueCheck> checks;
  if (!calibrate_and_compare(coverage.covered, options, checks)) return kTuningFailure;
  // A change must be seen twice: one calibration's significant win can be a
  // slow phase of a shared machine, and the same challenger winning again is
  // far less likely to be one.
  std::vector<Coverage> changed_keys;
  for (const Coverage& c : coverage.covered) {
    const std::string key = c.key.to_string();
    if (std::any_of(checks.begin(), checks.end(),
                    [&](const ValueCheck& v) { return v.key == key && v.outcome == "changed"; })) {
      changed_keys.push_back(c);
    }
  }
  if (!changed_keys.empty()) {
    fmt::print(stderr, "check: calibrating {} key(s) again to confirm their changes\n", changed_keys.size());
    std::vector<ValueCheck> again;
    if (!calibrate_and_compare(changed_keys, options, again)) return kTuningFailure;
    for (ValueCheck& first : checks) {
      if (first.outcome != "changed") continue;
      const auto second = std::find_if(again.begin(), again.end(), [&](const ValueCheck& v) {
        return v.key == first.key && v.parameter == first.parameter;
      });
      const std::string second_reason = second == again.end() ? "not measured" : second->reason;
      if (second != again.end() && second->outcome == "changed") {
        first.measured = second->measured;
        first.reason = second->reason == first.reason
                           ? second->reason + " (in both calibrations)"
                           : fmt::format("{} (the first calibration: {})", second->reason, first.reason);
      } else {
        first.outcome = "unchanged";
        first.measured = first.committed;
        first.reason = fmt::format("a challenger won once ({}), not again ({})", first.reason, second_reason);
      }
    }
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
