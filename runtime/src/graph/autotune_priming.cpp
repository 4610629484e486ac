// EXHAUSTIVE-mode priming: a temporary plan with global.benchmarking=1 is
// built, skipped when its workspace does not fit, else run once and dropped,
// so the engine's internal caches are warm before the real plan is compiled.
#include <fmt/format.h>

#include "autotune_runner.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph::detail {

PrimingOutcome prime_candidate(const ExecutionPlan& candidate, const OperationGraph& graph,
                               const AutotuneRequest& request) {
  std::vector<KnobSetting> settings = candidate.knob_settings;
  settings.push_back({std::string(kBenchmarkingKnob), KnobValue(std::int64_t{1})});
  ExecutionPlan priming = make_plan(candidate.engine, candidate.engine_id, std::move(settings),
                                    candidate.estimated_workspace);
  if (compile_plan(priming, graph, request.handle.device()).is_bad()) {
    return {PrimingStatus::FAILED, "priming plan " + priming.failure};
  }
  if (request.workspace_limit && priming.workspace_size > *request.workspace_limit) {
    if (candidate.estimated_workspace <= *request.workspace_limit) {
      log::warn("autotune: '{}': priming skipped: the priming plan needs {} bytes of workspace, more than the {} "
                "available, although the estimate ({} bytes) fitted",
                candidate.name(), priming.workspace_size, *request.workspace_limit, candidate.estimated_workspace);
    }
    return {PrimingStatus::SKIPPED_WORKSPACE,
            fmt::format("priming skipped: priming plan workspace {} bytes exceeds limit {} bytes",
                        priming.workspace_size, *request.workspace_limit)};
  }
  Error executed = execute_plan(priming, request.variant_pack, request.workspace, priming.workspace_size,
                                request.handle.stream());
  if (executed.is_good()) executed = request.handle.device().synchronize();
  if (executed.is_bad()) return {PrimingStatus::FAILED, "priming plan failed to execute: " + executed.message()};
  return {PrimingStatus::PRIMED, {}};
}

}  // namespace tunekit::graph::detail
