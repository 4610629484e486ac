// The record of one key's calibration: every candidate measured with its
// samples, median and dispersion, every measurement rejected or skipped
// (wrong result, budget), the values selected and why, plus the processor,
// execution, thread count, power policy (diagnostics), tunekit version and
// tuning ABI. Serialises to JSON; its digest identifies calibrated profiles
// in caches and sessions.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "tunekit/tuning/crossover_search.hpp"
#include "tunekit/tuning/kernel_tuning_parameters.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/platform/power_policy.hpp"

namespace tunekit::tuning {

struct CandidateRecord {
  std::string parameter;  // the threshold being calibrated, e.g. "parallel.minimum_elements"
  std::string candidate;  // what was measured, e.g. "size=65536 path=parallel"
  std::vector<double> samples_ms;
  double median_ms = 0, mad_ms = 0, cov = 0;
};

struct RejectedRecord {
  std::string parameter;
  std::string candidate;
  std::string reason;  // "wrong result at element 3: ...", "exceeds the memory budget: ..."
};

struct SelectedValue {
  std::string parameter;
  TuningValue value;
  std::string reason;
};

class CalibrationReporter {
 public:
  CalibrationReporter(KernelTuningKey key, platform::CpuExecutionDescriptor execution, std::uint32_t threads);

  void record_candidate(std::string parameter, std::string candidate, std::vector<double> samples_ms);
  void record_rejected(std::string parameter, std::string candidate, std::string reason);
  // Both paths of every probe of a crossover search.
  void record_crossover(const std::string& parameter, const CrossoverResult& result);
  void select(std::string parameter, TuningValue value, std::string reason);
  void note(std::string text);
  // The implementation cannot run here (missing instruction set, device).
  void mark_unsupported(std::string reason);
  // Governor, boost and frequencies during the measurements; every field is
  // written "unknown" when not recorded or not exposed.
  void set_power_policy(platform::PowerPolicy power) { power_ = std::move(power); }

  const KernelTuningKey& key() const noexcept { return key_; }
  const platform::CpuExecutionDescriptor& execution() const noexcept { return execution_; }
  std::uint32_t threads() const noexcept { return threads_; }
  const platform::PowerPolicy& power_policy() const noexcept { return power_; }
  const std::vector<CandidateRecord>& candidates() const noexcept { return candidates_; }
  const std::vector<RejectedRecord>& rejected() const noexcept { return rejected_; }
  const std::vector<SelectedValue>& selected() const noexcept { return selected_; }
  const std::vector<std::string>& notes() const noexcept { return notes_; }
  bool unsupported() const noexcept { return !unsupported_reason_.empty(); }
  const std::string& unsupported_reason() const noexcept { return unsupported_reason_; }

  // Why nothing was measured, for a key whose callback returned no value:
  // "parameter: reason" of every selection, joined by "; ".
  std::string kept_defaults_summary() const;

  void set_elapsed(std::chrono::nanoseconds elapsed) noexcept { elapsed_ = elapsed; }
  // Pretty JSON of the whole record (deterministic key order).
  std::string to_json() const;
  // XXH3-128 of to_json(), 32 hex digits.
  std::string digest() const;

 private:
  KernelTuningKey key_;
  platform::CpuExecutionDescriptor execution_;
  std::uint32_t threads_;
  platform::PowerPolicy power_;
  std::vector<CandidateRecord> candidates_;
  std::vector<RejectedRecord> rejected_;
  std::vector<SelectedValue> selected_;
  std::vector<std::string> notes_;
  std::string unsupported_reason_;
  std::chrono::nanoseconds elapsed_{0};
};

}  // namespace tunekit::tuning
