// Two ways of running a product timed against each other by the Gemm
// calibrations (streamed against packed, one thread against the team,
// serial against parallel conversions): taking turns, since the samples of
// one and then the other's met different phases of a shared machine.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "tunekit/measure/statistics.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::cpu::gemm_detail {

// Times both runs interleaved (measure_interleaved, at least five rounds),
// records each one's samples under its name and returns their medians in
// ms, or nothing after an error (recorded as a rejection of both).
inline std::optional<std::pair<double, double>> time_pair(tuning::CalibrationContext& context,
                                                          const std::string& parameter, const std::string& first_what,
                                                          const std::function<Error()>& first,
                                                          const std::string& second_what,
                                                          const std::function<Error()>& second) {
  auto samples = tuning::measure_interleaved({first, second}, std::max(context.options.repetitions, 5));
  if (!samples.ok()) {
    context.reporter.record_rejected(parameter, first_what + " / " + second_what, samples.error().message());
    return std::nullopt;
  }
  const std::pair<double, double> medians{measure::median((*samples)[0]), measure::median((*samples)[1])};
  context.reporter.record_candidate(parameter, first_what, std::move((*samples)[0]));
  context.reporter.record_candidate(parameter, second_what, std::move((*samples)[1]));
  return medians;
}

}  // namespace tunekit::cpu::gemm_detail
