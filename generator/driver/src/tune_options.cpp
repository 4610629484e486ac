#include "tune_options.hpp"

#include <fmt/format.h>

#include "tunekit/core/utf8.hpp"

namespace tunekit::cli {

void add_measurement_options(CLI::App& app, TuneOptions& o) {
  app.add_option("--mode", o.mode, "standard or exhaustive")->capture_default_str();
  app.add_option("--strategy", o.strategy, "fixed_average, run_until_stable or race")->capture_default_str();
  app.add_option("--iterations", o.iterations,
                 "Timed iterations (fixed_average), the iteration cap (run_until_stable) or the round cap (race)")
      ->check(CLI::PositiveNumber);
  app.add_option("--race-min-samples", o.race_min_samples,
                 "race: samples every candidate has before the first elimination")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  app.add_option("--tie-band", o.tie_band_percent,
                 "Percent within which candidates tie with the fastest; a tie is won by the lower engine id, then "
                 "knobs (0: no ties, the order is by min time)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 99.0));
  app.add_option("--confidence", o.confidence_percent,
                 "Percent confidence of the comparison that calls a candidate slower, tied or undecided")
      ->capture_default_str()
      ->check(CLI::Range(50.0, 99.9));
  app.add_option("--warmup", o.warmup, "Warm-up executions per candidate")->check(CLI::NonNegativeNumber);
  app.add_option("--workspace-limit", o.workspace_limit,
                 "Bytes of workspace; candidates needing more are skipped (default: the largest estimate)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--memory-budget", o.memory_budget_mib,
                 "MiB that one shape's buffers (inputs, outputs, workspace) may take together; a shape needing "
                 "more is refused before anything is allocated")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--device", o.device,
                 "Where the candidates run: cpu, or hip (hip:N for device N) with the GPU engines of a plugin "
                 "(tunekit-hip); without a GPU the run stops and says why")
      ->capture_default_str();
  app.add_option("--plugin", o.plugins,
                 "Engine plugin (shared library) whose engines are candidates too, repeatable; loaded after those "
                 "of TUNEKIT_ENGINE_PLUGIN_PATH");
  app.add_option("--dispersion-limit", o.dispersion_limit_percent,
                 "Percent dispersion (1.4826 x median absolute deviation over the median) above which a candidate's "
                 "measurement is unreliable")
      ->capture_default_str()
      ->check(CLI::Range(0.000001, 1000.0));
  app.add_option("--settle-timeout", o.settle_timeout_ms,
                 "Milliseconds to wait, before each candidate is timed, for the threads of the library timed before "
                 "it to sleep (0: never wait; a candidate timed while other threads ran is unreliable)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60000.0));
  app.add_flag("--no-result-check", o.no_result_check,
               "Do not compare each candidate's results with a reference engine's before timing it (by default "
               "one that disagrees fails with 'wrong result' and its largest error)");
  app.add_option("--result-tolerance", o.result_tolerance,
                 "Largest error (relative, absolute below 1) of the result check (default: 1e-3 for float, 1e-9 "
                 "for double, 2e-2 for float16, 6e-2 for bfloat16)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("--isolate", o.isolate,
               "Compile, check and time each candidate in a child process of its own, so that a candidate that "
               "crashes, aborts or hangs fails alone (with its signal or --candidate-timeout) and tuning goes on; "
               "not with --strategy race");
  app.add_option("--candidate-timeout", o.candidate_timeout_s,
                 "--isolate: seconds one candidate's process may take before it is killed")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
}

Result<graph::AutotuneConfig> autotune_config_from(const TuneOptions& options) {
  const auto mode = graph::parse_tune_mode(options.mode);
  const auto strategy = measure::parse_strategy(options.strategy);
  if (!mode) {
    return Error{ErrorCode::INVALID_VALUE, fmt::format("--mode: unknown mode '{}' (standard, exhaustive)",
                                                       core::replace_invalid_utf8(options.mode))};
  }
  if (!strategy) {
    return Error{ErrorCode::INVALID_VALUE,
                 fmt::format("--strategy: unknown strategy '{}' (fixed_average, run_until_stable, race)",
                             core::replace_invalid_utf8(options.strategy))};
  }
  if (options.isolate && *strategy == graph::AutotuneStrategy::RACE) {
    return Error{ErrorCode::INVALID_VALUE,
                 "--isolate measures each candidate in a process of its own, so candidates cannot race: use "
                 "--strategy run_until_stable or fixed_average with it"};
  }
  graph::AutotuneConfig config;
  config.mode = *mode;
  config.strategy = *strategy;
  config.warmup_iterations = options.warmup;
  config.race_min_samples = options.race_min_samples;
  config.tie_band = options.tie_band_percent / 100.0;
  config.confidence = options.confidence_percent / 100.0;
  config.dispersion_limit = options.dispersion_limit_percent / 100.0;
  config.settle_timeout_ms = options.settle_timeout_ms;
  config.check_results = !options.no_result_check;
  config.result_tolerance = options.result_tolerance;
  if (options.iterations > 0) {
    if (config.strategy == graph::AutotuneStrategy::FIXED_AVERAGE) {
      config.timed_iterations = options.iterations;
    } else {
      config.max_iterations = options.iterations;
    }
  }
  TUNEKIT_RETURN_IF_ERROR(graph::validate(config));
  return config;
}

}  // namespace tunekit::cli
