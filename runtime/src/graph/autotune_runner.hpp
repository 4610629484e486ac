// Internal: the autotune loop split into its phases. The runner collects one
// candidate per plan spec or compiled plan, filters, primes (EXHAUSTIVE),
// compiles, checks workspaces, benchmarks, ranks and selects the winner;
// priming and the timing of one plan live in their own files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "execution_plan.hpp"
#include "graph_impl.hpp"
#include "tunekit/measure/batched_sampler.hpp"
#include "tunekit/measure/timed_run_loop.hpp"

namespace tunekit::graph::detail {

// Waits for the process's other threads to sleep before a candidate is
// timed (AutotuneConfig::settle_timeout_ms). Once a wait has timed out, the
// threads still running are taken to stay busy: later calls only look, so a
// race does not pay the timeout on every sample.
class MachineSettler {
 public:
  explicit MachineSettler(double timeout_ms) : timeout_ms_(timeout_ms) {}
  struct Outcome {
    double waited_ms = 0.0;
    std::string unsettled;  // why the machine was not settled ("" when it was)
  };
  Outcome settle();

 private:
  double timeout_ms_;
  bool gave_up_ = false;
};

// What a candidate's settling cost and found, over its warm-up and samples.
struct SettleRecord {
  double waited_ms = 0.0;
  std::string unsettled;  // the first time other threads still ran, or ""
  void add(const MachineSettler::Outcome& outcome);
};

struct AutotuneRequest {
  Handle& handle;
  const VariantPack& variant_pack;
  void* workspace;
  std::optional<std::int64_t> workspace_limit;  // nullopt: the overload without a workspace size
  const AutotuneConfig& config;
  MachineSettler* settler = nullptr;  // null: nothing is waited for
};

// Why the user's own criteria left a candidate out: such exclusions are not
// failures, and when they leave nothing to benchmark autotune() says so.
enum class Exclusion {
  NONE,
  DESELECTED,           // deselect_engines(), or deselect_*() in build_plans() (compiled-plan path)
  FILTERED,             // config.engine_id_filter
  WORKSPACE_DESELECTED, // deselect_workspace_greater_than(), after compilation (plan-spec path)
};

struct Candidate {
  AutotuneResult result;
  ExecutionPlan* plan = nullptr;         // the plan timed (owned below on the plan-spec path)
  std::unique_ptr<ExecutionPlan> owned;  // plan-spec path
  int plan_index = -1;                   // compiled index once compiled
  bool settled = false;                  // disposition final: not benchmarked
  Exclusion exclusion = Exclusion::NONE;
};

// The result check before timing (AutotuneConfig::check_results): the
// reference engine's outputs on the variant pack, computed once, and each
// candidate's compared with them. The reference is compiled apart from the
// candidates, with its knobs' defaults and its own workspace, so it checks
// them whether or not it is a candidate itself.
class ResultChecker {
 public:
  ResultChecker(Graph::Impl& g, const AutotuneRequest& request);
  // Runs the candidate once on poisoned outputs and compares; fills
  // result_check and result_error. Returns the failure ("wrong result
  // against ...") or "" when it agrees or could not be checked.
  std::string check(ExecutionPlan& plan, AutotuneResult& result);
  // Why nothing is checked ("" when a reference ran).
  const std::string& unavailable() const noexcept { return unavailable_; }

 private:
  struct Output {
    std::int64_t uid = -1;
    std::string name;
    DataType type = DataType::FLOAT;
    std::int64_t elements = 0;
    void* data = nullptr;             // the caller's buffer (on the device)
    std::vector<std::byte> expected;  // the reference's result
    std::vector<std::byte> staged;    // a device result copied to the host
    std::size_t bytes() const noexcept { return static_cast<std::size_t>(elements) * core::size_of(type); }
  };
  // The reference's run on host copies of the inputs, for a device the host
  // cannot address (a GPU); "" or why it could not run.
  std::string run_reference_on_host(ExecutionPlan& plan);
  // Writes NaN into every output (through the device's copy when staged);
  // "" or the copy's failure.
  std::string poison_outputs();
  Graph::Impl& g_;
  const AutotuneRequest& request_;
  std::string reference_name_;
  std::string unavailable_;
  std::vector<Output> outputs_;
  // Set when the device is not host-addressable: the reference runs on this
  // CPU device and the candidates' outputs are copied back to compare.
  std::unique_ptr<platform::Device> host_device_;
};

// Times one compiled plan: timed warm-up, device synchronization, then the
// timed loop of the configured strategy over batched samples from the
// stream's timer. The warm-up times choose the batch size when single
// executions are long enough, so no execution is added for it.
struct BenchmarkOutcome {
  std::string failure;  // empty on success; starts "failed warmup" or "failed benchmark"
  measure::MeasureOutcome measured;
  std::int64_t batch_size = 0;              // 0 when the batch size was never chosen
  std::int64_t calibration_executions = 0;  // run only to choose the batch size
  std::int64_t rewarm_executions = 0;       // RACE: run untimed before each sample
  bool batch_capped = false;  // the largest batch was still too short for the timer
  SettleRecord settling;
};
BenchmarkOutcome benchmark_plan(ExecutionPlan& plan, const AutotuneRequest& request);

// A plan warmed up, its batch size chosen and the device synchronized, ready
// for timed samples (sampler->time_once()); failure says why it is not.
struct PreparedBenchmark {
  std::string failure;
  std::optional<measure::BatchedSampler> sampler;
  SettleRecord settling;  // the wait before the warm-up
};
PreparedBenchmark prepare_benchmark(ExecutionPlan& plan, const AutotuneRequest& request);
void record_batching(const measure::BatchedSampler& sampler, BenchmarkOutcome& outcome);

enum class PrimingStatus { PRIMED, SKIPPED_WORKSPACE, FAILED };
struct PrimingOutcome {
  PrimingStatus status = PrimingStatus::PRIMED;
  std::string detail;  // why it was skipped or failed
};
// Builds a temporary plan with the candidate's knobs plus global.benchmarking=1,
// runs it once (unless its workspace does not fit) and discards it.
PrimingOutcome prime_candidate(const ExecutionPlan& candidate, const OperationGraph& graph,
                               const AutotuneRequest& request);

// The whole run; the caller has checked the preconditions.
Error run_autotune(Graph::Impl& graph, const AutotuneRequest& request, std::vector<AutotuneResult>* results);

}  // namespace tunekit::graph::detail
