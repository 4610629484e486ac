// The six autotune() overloads and the checks made before anything runs:
// handle, build state, configuration, workspace, variant pack, which path
// holds the candidates and whether the mode fits that path.
#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "autotune_runner.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/graph/override_writer.hpp"

namespace tunekit::graph {
namespace {

// The error goes back to the caller, who decides whether to log it; the
// debug line only traces the run (every message starts with "autotune:").
Error fail(ErrorCode code, const std::string& message) {
  log::debug("{}", message);
  return {code, message};
}

Error run_checked(Graph::Impl& g, Handle* handle, const VariantPack& variant_pack, void* workspace,
                  std::optional<std::int64_t> workspace_size, const AutotuneConfig& config,
                  const AutotuneStorageConfig& storage, std::vector<AutotuneResult>* results) {
  if (results) results->clear();
  if (!handle) return fail(ErrorCode::INVALID_VALUE, "autotune: invalid handle (null)");
  if (Error built = g.require_built("autotune"); built.is_bad()) return fail(built.code(), built.message());
  if (Error invalid = validate(config); invalid.is_bad()) {
    return fail(ErrorCode::INVALID_VALUE, "autotune: invalid AutotuneConfig: " + invalid.message());
  }
  if (workspace_size && *workspace_size < 0) {
    return fail(ErrorCode::INVALID_VALUE,
                fmt::format("autotune: workspace_size must not be negative, got {}", *workspace_size));
  }
  if (Error pack = detail::check_variant_pack(g.operation_graph, variant_pack, "autotune"); pack.is_bad()) {
    return fail(pack.code(), pack.message());
  }

  const bool has_specs = !g.specs.empty();
  const bool has_plans = !g.plans.empty();
  if (has_specs && has_plans) {
    return fail(ErrorCode::BAD_STATE, "autotune: the graph has both plan specs and execution plans");
  }
  if (!has_specs && !has_plans) {
    return fail(ErrorCode::BAD_STATE,
                "autotune: no autotuning candidates (add plan specs with add_engine*() or build plans with "
                "create_execution_plans() and build_plans())");
  }
  if (has_specs && !workspace_size) {
    return fail(ErrorCode::BAD_STATE,
                "autotune: this overload is for compiled plans only, but the graph has plan specs; pass a "
                "workspace size");
  }
  if (has_plans && config.mode == TuneMode::EXHAUSTIVE) {
    return fail(ErrorCode::INVALID_VALUE,
                "autotune: EXHAUSTIVE mode needs the plan-spec path; on the compiled-plan path set "
                "global.benchmarking with create_execution_plan_ext()");
  }
  if (workspace == nullptr) {
    if (workspace_size && *workspace_size > 0) {
      return fail(ErrorCode::INVALID_VALUE,
                  fmt::format("autotune: the workspace is null but workspace_size is {}", *workspace_size));
    }
    std::int64_t needed = 0;
    for (const auto& plan : g.plans) {
      if (plan.compiled() && plan.barred.empty()) needed = std::max(needed, plan.workspace_size);
    }
    if (!workspace_size && needed > 0) {
      return fail(ErrorCode::INVALID_VALUE,
                  fmt::format("autotune: the workspace is null but the plans need up to {} bytes", needed));
    }
  }

  const detail::AutotuneRequest request{*handle, variant_pack, workspace, workspace_size, config};
  std::vector<AutotuneResult> ranked;
  std::vector<AutotuneResult>* out = results ? results : &ranked;
  Error outcome;
  try {
    outcome = detail::run_autotune(g, request, out);
  } catch (const std::exception& error) {
    return fail(ErrorCode::INTERNAL, fmt::format("autotune: unexpected exception: {}", error.what()));
  }
  if (outcome.is_bad()) return fail(outcome.code(), outcome.message());
  if (!storage.file_path.empty()) {
    // The winner is selected whatever happens to the file.
    const OverrideWriteContext context{handle->device(), handle->registry()};
    Result<OverrideWriteReport> written = write_autotune_override(g.operation_graph, out->front(), context, storage);
    if (!written.ok()) return written.error();
  }
  return Error::ok();
}

}  // namespace

Error Graph::autotune(Handle* handle, const VariantPack& variant_pack, void* workspace, const AutotuneConfig& config,
                      const AutotuneStorageConfig& storage, std::vector<AutotuneResult>* results) {
  return run_checked(*impl_, handle, variant_pack, workspace, std::nullopt, config, storage, results);
}

Error Graph::autotune(Handle* handle, const TensorLookup& tensor_lookup, void* workspace,
                      const AutotuneConfig& config, const AutotuneStorageConfig& storage,
                      std::vector<AutotuneResult>* results) {
  Result<VariantPack> pack = to_variant_pack(tensor_lookup);
  if (!pack.ok()) return fail(pack.error().code(), "autotune: " + pack.error().message());
  return autotune(handle, *pack, workspace, config, storage, results);
}

Error Graph::autotune(Handle* handle, const VariantPack& variant_pack, void* workspace, std::int64_t workspace_size,
                      const AutotuneConfig& config, const AutotuneStorageConfig& storage,
                      std::vector<AutotuneResult>* results) {
  return run_checked(*impl_, handle, variant_pack, workspace, workspace_size, config, storage, results);
}

Error Graph::autotune(Handle* handle, const TensorLookup& tensor_lookup, void* workspace, std::int64_t workspace_size,
                      const AutotuneConfig& config, const AutotuneStorageConfig& storage,
                      std::vector<AutotuneResult>* results) {
  Result<VariantPack> pack = to_variant_pack(tensor_lookup);
  if (!pack.ok()) return fail(pack.error().code(), "autotune: " + pack.error().message());
  return autotune(handle, *pack, workspace, workspace_size, config, storage, results);
}

Error Graph::autotune(Handle* handle, VariantPack& variant_pack, void* workspace, void* /*user_impl*/) {
  const VariantPack& pack = variant_pack;
  return autotune(handle, pack, workspace, AutotuneConfig{}, AutotuneStorageConfig{}, nullptr);
}

Error Graph::autotune(Handle* handle, TensorLookup& tensor_lookup, void* workspace, void* /*user_impl*/) {
  const TensorLookup& lookup = tensor_lookup;
  return autotune(handle, lookup, workspace, AutotuneConfig{}, AutotuneStorageConfig{}, nullptr);
}

}  // namespace tunekit::graph
