// What `tunekit report` shows, gathered from its inputs into one JSON model
// that the page renders (report_page.hpp). Each input is recognised by its
// content: a calibration report (`calibrate --report`: an object with
// "calibrated"), an engine-override file (an object with "engine_overrides"),
// the ranked tables of `tune --json` (an array of shapes with "candidates"),
// or a calibration cache (TOML).
//
// The model:
//   calibration  per key: its outcome, execution, and per selected
//                parameter the value, the reason, the portable default (when
//                the key's schema is registered here) and either the
//                crossover probes per path ("size=N path=P" candidates:
//                size, median, MAD) or the other candidates (median, MAD)
//   cache        per entry: key, execution identity, values
//   overrides    per entry: file, op, engine, knobs, shape, stored time
//   shapes       per tuned shape: the candidates ranked (median, the
//                middle half of the samples, failures with their reasons)
//   comparison   with inputs from before: each shape's winner and each
//                calibrated value before and after, changed or not
//   charts       one spec per chart, with the number of points it draws
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"

namespace tunekit::cli {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> before;  // inputs of the run compared against
  std::string output;
  double tie_band_percent = 2.0;  // shaded beside each shape's fastest candidate
  std::string title = "tunekit report";
};

// INVALID_VALUE naming the file (and what is wrong) for an input that cannot
// be read or recognised.
Result<nlohmann::json> build_report_model(const ReportOptions& options);

}  // namespace tunekit::cli
