// Timing plans for autotune: timed warm-up, device sync, then run_timed_loop
// (or the race, over several plans) on BatchedSamplers whose clock is the
// handle stream's timer, so executions below the timer's resolution are
// timed in batches.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autotune_runner.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/measure/settle.hpp"

namespace tunekit::graph::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Used when a timer reports no resolution: one nanosecond.
constexpr double kFallbackResolutionSeconds = 1e-9;

}  // namespace

MachineSettler::Outcome MachineSettler::settle() {
  measure::SettleOptions options;
  options.timeout_ms = gave_up_ ? 0.0 : timeout_ms_;
  const measure::SettleReport report = measure::settle_threads(options);
  Outcome outcome;
  outcome.waited_ms = report.waited_ms;
  if (!report.settled) {
    gave_up_ = true;
    outcome.unsettled = measure::describe(report);
  }
  return outcome;
}

void SettleRecord::add(const MachineSettler::Outcome& outcome) {
  waited_ms += outcome.waited_ms;
  if (unsettled.empty() && !outcome.unsettled.empty()) unsettled = outcome.unsettled;
}

PreparedBenchmark prepare_benchmark(ExecutionPlan& plan, const AutotuneRequest& request) {
  PreparedBenchmark prepared;
  platform::Stream& stream = request.handle.stream();
  platform::Device& device = request.handle.device();
  // Pointers, not references to locals: the sampler runs the plan after this
  // function returns (the race takes its samples later).
  auto run = [plan = &plan, pack = &request.variant_pack, workspace = request.workspace, stream = &stream]() -> Error {
    return execute_plan(*plan, *pack, workspace, plan->workspace_size, *stream);
  };

  // The timer exists before the warm-up, whose executions are timed too.
  Result<std::unique_ptr<platform::Timer>> created = device.create_timer(stream);
  if (!created.ok()) {
    prepared.failure = "failed benchmark: cannot create a timer: " + created.error().message();
    return prepared;
  }
  std::shared_ptr<platform::Timer> timer = std::move(created).value();
  if (Error started = timer->start(); started.is_bad()) {
    prepared.failure = "failed benchmark: timer start: " + started.message();
    return prepared;
  }
  // Seconds since the start point: each read records a stop event and waits for it.
  auto clock = [timer]() -> double {
    if (timer->stop().is_bad()) return kNaN;
    Result<double> elapsed = timer->elapsed_ms();
    return elapsed.ok() ? *elapsed / 1e3 : kNaN;
  };
  measure::BatchedSamplerOptions options;
  const double resolution = timer->resolution_ms() / 1e3;
  options.clock_resolution_s = resolution > 0.0 && std::isfinite(resolution) ? resolution : kFallbackResolutionSeconds;
  options.log_prefix = fmt::format("autotune: '{}':", plan.name());
  prepared.sampler.emplace(clock, run, measure::BatchedSampler::Synchronize{}, options);

  // The warm-up times choose the batch size: they must not carry the spin of
  // the pool that ran before.
  if (request.settler) prepared.settling.add(request.settler->settle());

  if (Error warm = prepared.sampler->warm_up(request.config.warmup_iterations); warm.is_bad()) {
    prepared.failure = "failed warmup: " + warm.message();
    return prepared;
  }
  // The device is idle before this plan's timed runs start.
  if (Error synced = device.synchronize(); synced.is_bad()) {
    prepared.failure = "failed benchmark: device synchronize: " + synced.message();
  }
  return prepared;
}

void record_batching(const measure::BatchedSampler& sampler, BenchmarkOutcome& outcome) {
  outcome.batch_size = sampler.batch_size();
  if (sampler.calibration()) {
    outcome.calibration_executions = sampler.calibration()->extra_executions;
    outcome.batch_capped = sampler.calibration()->reached_cap;
  }
}

BenchmarkOutcome benchmark_plan(ExecutionPlan& plan, const AutotuneRequest& request) {
  BenchmarkOutcome outcome;
  PreparedBenchmark prepared = prepare_benchmark(plan, request);
  if (!prepared.failure.empty()) {
    outcome.failure = std::move(prepared.failure);
    return outcome;
  }
  const std::string name = plan.name();
  auto progress = [&](const measure::IterationProgress& p) {
    if (std::isnan(p.window_cov)) {
      log::debug("autotune: '{}' iteration {}: {:.6f} ms", name, p.iteration, p.sample_ms);
    } else {
      log::debug("autotune: '{}' iteration {}: {:.6f} ms, window CoV {:.4f}", name, p.iteration, p.sample_ms,
                 p.window_cov);
    }
  };
  outcome.measured = measure::run_timed_loop(to_measure_config(request.config), prepared.sampler->time_once(), progress);
  record_batching(*prepared.sampler, outcome);
  outcome.settling = std::move(prepared.settling);
  if (outcome.measured.failed) outcome.failure = "failed benchmark: " + outcome.measured.message;
  return outcome;
}

}  // namespace tunekit::graph::detail
