// Two ways of running a product judged against each other by the Gemm
// calibrations (streamed against packed, one thread against the team,
// serial against parallel conversions): taking turns, since the samples of
// one and then the other's met different phases of a shared machine, and
// judged by the comparison every calibration uses (tuning::judge, over
// measure::compare_times).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/crossover_search.hpp"

namespace tunekit::cpu::gemm_detail {

// Times `baseline` and `candidate` interleaved (measure_interleaved, at least
// five rounds), and while the comparison cannot tell them apart (undecided)
// takes as many rounds again, up to three times the first count, as the
// elementwise crossover probe does. Records both sample sets under their names
// and returns the judgement of the candidate against the baseline at
// `margin`, or nothing after an error (recorded as a rejection of both).
inline std::optional<tuning::CrossoverProbe> judge_pair(tuning::CalibrationContext& context,
                                                        const std::string& parameter, double margin,
                                                        const std::string& baseline_what,
                                                        const std::function<Error()>& baseline,
                                                        const std::string& candidate_what,
                                                        const std::function<Error()>& candidate) {
  const int rounds = std::max(context.options.repetitions, 5);
  tuning::PathTimings timings;
  tuning::CrossoverProbe probe;
  for (int taken = 0; taken < 3 * rounds; taken += rounds) {
    auto samples = tuning::measure_interleaved({baseline, candidate}, rounds);
    if (!samples.ok()) {
      context.reporter.record_rejected(parameter, baseline_what + " / " + candidate_what, samples.error().message());
      return std::nullopt;
    }
    timings.baseline_ms.insert(timings.baseline_ms.end(), (*samples)[0].begin(), (*samples)[0].end());
    timings.candidate_ms.insert(timings.candidate_ms.end(), (*samples)[1].begin(), (*samples)[1].end());
    probe = tuning::judge(0, timings, margin);
    if (!probe.undecided) break;
  }
  context.reporter.record_candidate(parameter, baseline_what, std::move(timings.baseline_ms));
  context.reporter.record_candidate(parameter, candidate_what, std::move(timings.candidate_ms));
  return probe;
}

}  // namespace tunekit::cpu::gemm_detail
