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
#include "tunekit/measure/timed_run_loop.hpp"

namespace tunekit::graph::detail {

struct AutotuneRequest {
  Handle& handle;
  const VariantPack& variant_pack;
  void* workspace;
  std::optional<std::int64_t> workspace_limit;  // nullopt: the overload without a workspace size
  const AutotuneConfig& config;
};

struct Candidate {
  AutotuneResult result;
  ExecutionPlan* plan = nullptr;         // the plan timed (owned below on the plan-spec path)
  std::unique_ptr<ExecutionPlan> owned;  // plan-spec path
  int plan_index = -1;                   // compiled index once compiled
  bool settled = false;                  // disposition final: not benchmarked
};

// Times one compiled plan: warm-up, device synchronization, then the timed
// loop of the configured strategy over batched samples from the stream's timer.
struct BenchmarkOutcome {
  std::string failure;  // empty on success; starts "failed warmup" or "failed benchmark"
  measure::MeasureOutcome measured;
  std::int64_t batch_size = 0;
};
BenchmarkOutcome benchmark_plan(ExecutionPlan& plan, const AutotuneRequest& request);

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
