#include "tune_shape.hpp"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstring>
#include <random>

#include "exit_codes.hpp"
#include "tune_incumbent.hpp"
#include "tune_isolated.hpp"
#include "tunekit/core/half_precision.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/graph/engine_knob_sweep.hpp"
#include "tunekit/graph/engine_plugin.hpp"
#include "tunekit/graph/graph_buffers.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/platform/hip_device.hpp"

namespace tunekit::cli {

namespace {

// 0 for "hip", N for "hip:N"; nullopt for anything else.
std::optional<int> hip_device_index(std::string_view name) {
  if (name == "hip") return 0;
  if (!name.starts_with("hip:")) return std::nullopt;
  const std::string_view digits = name.substr(4);
  int index = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || digits.front() < '0' || digits.front() > '9' || status != std::errc() ||
      end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return index;
}

}  // namespace

Result<std::unique_ptr<platform::Device>> open_device(const std::string& name) {
  if (name == "cpu") return std::unique_ptr<platform::Device>(std::make_unique<platform::CpuDevice>());
  const std::optional<int> index = hip_device_index(name);
  if (!index) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("--device: unknown device '{}' (cpu, hip or hip:N)", core::replace_invalid_utf8(name)));
  }
  Result<std::unique_ptr<platform::Device>> device = platform::open_hip_device(*index);
  if (!device.ok()) return Error(device.error().code(), fmt::format("--device {}: {}", name, device.error().message()));
  return device;
}

Result<std::unique_ptr<TuneSession>> open_tune_session(const TuneOptions& options, const EngineRegistrations& engines) {
  auto registry = std::make_shared<graph::EngineRegistry>();
  TUNEKIT_RETURN_IF_ERROR(register_engines(engines, *registry));
  // A refused plugin is reported and tuning goes on with the other engines.
  std::vector<std::string> plugins = graph::engine_plugin_path();
  plugins.insert(plugins.end(), options.plugins.begin(), options.plugins.end());
  for (const graph::EnginePluginLoad& load : graph::load_engine_plugins(plugins, *registry)) {
    if (!load.loaded) {
      fmt::print(stderr, "{}: plugin {} refused: {}\n", options.program, core::replace_invalid_utf8(load.path),
                 core::replace_invalid_utf8(load.reason));
    }
  }
  auto session = std::make_unique<TuneSession>();
  Result<std::unique_ptr<platform::Device>> device = open_device(options.device);
  if (!device.ok()) return device.error();
  session->device = std::move(device).value();
  Result<std::unique_ptr<graph::Handle>> handle = graph::Handle::create(*session->device, registry);
  if (!handle.ok()) return handle.error();
  session->handle = std::move(handle).value();
  return session;
}

namespace {

// Zeroes every buffer, then fills the floating-point tensors (float, and the
// 16-bit float16 and bfloat16 rounded from it) with random values in [-1, 1).
// The host writes straight into memory it addresses (the CPU); a GPU's
// buffers are written on the host and copied, one buffer at a time.
Error fill_inputs(const graph::OperationGraph& og, graph::GraphBuffers& buffers, platform::Device& device) {
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const bool direct = device.host_addressable();
  std::vector<std::byte> staging;
  // Where the host writes `bytes` meant for the device buffer at `data`.
  auto host_view = [&](void* data, std::size_t bytes) -> void* {
    if (direct) return data;
    staging.resize(bytes);
    return staging.data();
  };
  auto publish = [&](void* data, std::size_t bytes) {
    return direct ? Error::ok() : device.copy_to_device(data, staging.data(), bytes);
  };
  for (platform::DeviceBuffer& buffer : buffers.memory) {
    std::memset(host_view(buffer.data(), buffer.size()), 0, buffer.size());
    TUNEKIT_RETURN_IF_ERROR(publish(buffer.data(), buffer.size()));
  }
  for (const graph::Tensor& t : og.tensors()) {
    const DataType type = t->get_data_type().value_or(DataType::FLOAT);
    if (t->get_is_virtual() ||
        (type != DataType::FLOAT && type != DataType::FLOAT16 && type != DataType::BFLOAT16)) {
      continue;
    }
    void* data = buffers.pack.at(t->get_uid());
    const std::int64_t count = t->span_elements().value();  // the graph is validated
    const std::size_t bytes = static_cast<std::size_t>(count) * core::size_of(type);
    void* values = host_view(data, bytes);
    for (std::int64_t i = 0; i < count; ++i) {
      const float value = uniform(random);
      if (type == DataType::FLOAT) {
        static_cast<float*>(values)[i] = value;
      } else {
        static_cast<std::uint16_t*>(values)[i] =
            type == DataType::BFLOAT16 ? core::float_to_bfloat16(value) : core::float_to_float16(value);
      }
    }
    TUNEKIT_RETURN_IF_ERROR(publish(data, bytes));
  }
  return Error::ok();
}

// Every applicable engine with the knob settings graph::engine_knob_sweep
// chooses (the all-defaults candidates are already stored); what was chosen
// goes to `sweeps` for the report. The candidates are those
// list_tune_candidates() names, as an isolated child's are.
Error add_knob_sweeps(graph::Graph& g, std::vector<graph::EngineKnobSweep>& sweeps) {
  Result<std::vector<TuneCandidate>> listed = list_tune_candidates(g, sweeps);
  if (!listed.ok()) return listed.error();
  std::vector<graph::EngineVariant> variants;
  for (const graph::EngineKnobSweep& sweep : sweeps) {
    variants.insert(variants.end(), sweep.variants.begin(), sweep.variants.end());
  }
  return variants.empty() ? Error::ok() : g.add_engine_variants(variants);
}

// Adds the isolated child's one candidate, after checking that the list
// derived here names the engine its parent measured at that index.
Error add_isolated_candidate(graph::Graph& g, Problem& p, const TuneOptions& options) {
  Result<std::vector<TuneCandidate>> candidates = list_tune_candidates(g, p.sweeps);
  if (!candidates.ok()) return candidates.error();
  const auto index = static_cast<std::size_t>(options.isolated_candidate);
  if (index >= candidates->size() || (*candidates)[index].engine_id != options.isolated_engine) {
    return {ErrorCode::INVALID_VALUE,
            fmt::format("--isolated-candidate {} is not engine {} here ({} candidates)", options.isolated_candidate,
                        options.isolated_engine, candidates->size())};
  }
  p.sweeps.clear();  // the parent reports the sweeps
  return g.add_engine((*candidates)[index].engine_id, (*candidates)[index].knobs);
}

// Every candidate timed in this process; `storage` written by autotune()
// itself unless it is empty.
void tune_in_process(Problem& p, graph::Graph& g, graph::Handle& handle, const graph::AutotuneConfig& config,
                     const graph::AutotuneStorageConfig& storage, const TuneOptions& options) {
  auto fail = [&](int code, std::string message) {
    p.exit_code = code;
    p.error = std::move(message);
  };
  if (options.isolated_candidate >= 0) {
    if (Error e = add_isolated_candidate(g, p, options); e.is_bad()) return fail(2, e.message());
  } else if (!options.only_candidates.empty()) {
    for (const TuneCandidate& c : options.only_candidates) {
      if (Error e = g.add_engine(c.engine_id, c.knobs); e.is_bad()) return fail(1, e.message());
    }
  } else {
    if (Error e = g.add_all_engines(); e.is_bad()) return fail(1, e.message());
    if (Error e = add_knob_sweeps(g, p.sweeps); e.is_bad()) return fail(1, e.message());
  }
  std::int64_t workspace_size = 0;
  if (Error e = g.get_estimated_max_workspace_size(workspace_size); e.is_bad()) return fail(1, e.message());
  if (options.workspace_limit >= 0) workspace_size = options.workspace_limit;
  // Every buffer is checked against the budget before any is allocated.
  Result<graph::GraphBuffers> buffers = graph::allocate_graph_buffers(g.operation_graph(), handle.device(),
                                                                      workspace_size, options.memory_budget_mib << 20);
  if (!buffers.ok()) {
    if (buffers.error().code() != ErrorCode::INVALID_VALUE) return fail(1, buffers.error().message());
    return fail(2, fmt::format("{} (--memory-budget {} MiB)", buffers.error().message(), options.memory_budget_mib));
  }
  if (Error e = fill_inputs(g.operation_graph(), *buffers, handle.device()); e.is_bad()) {
    return fail(1, "cannot write the inputs: " + e.message());
  }
  Error tuned = g.autotune(&handle, buffers->pack, buffers->workspace, buffers->workspace_size, config, storage,
                           &p.results);
  if (tuned.is_bad()) {
    // With results the tuning succeeded and the override file failed: INVALID_VALUE
    // is a refusal to append to it (bad input), IO_ERROR an output that cannot be written.
    const bool refused = tuned.code() == ErrorCode::INVALID_VALUE && !p.results.empty();
    return fail(output_exit_code(tuned, refused ? kBadInput : kTuningFailure), tuned.message());
  }
  if (Error e = g.execute(&handle, buffers->pack, buffers->workspace); e.is_bad()) {
    return fail(1, "the winner does not execute: " + e.message());
  }
}

// --isolate: every candidate timed in a child process of its own.
void tune_isolated(Problem& p, graph::Graph& g, const std::string& graph_path, const graph::AutotuneConfig& config,
                   const TuneOptions& options) {
  Result<std::vector<TuneCandidate>> candidates = list_tune_candidates(g, p.sweeps);
  if (!candidates.ok()) {
    p.exit_code = kTuningFailure;
    p.error = candidates.error().message();
    return;
  }
  if (candidates->empty()) {
    p.exit_code = kTuningFailure;
    p.error = "autotune: no engine applies to this graph";
    return;
  }
  if (Error e = run_isolated_candidates(p, *candidates, graph_path, options, config); e.is_bad()) {
    p.exit_code = kTuningFailure;
    p.error = e.message();
    return;
  }
  if (p.results.empty() || !p.results.front().succeeded) {
    p.exit_code = kTuningFailure;
    p.error = fmt::format("autotune: every candidate failed ({} candidates; first: {})", p.results.size(),
                          p.results.empty() ? "" : p.results.front().error_message);
  }
}

}  // namespace

void tune_shape(Problem& p, const graph::GraphFile& file, const std::string& graph_path,
                std::optional<std::size_t> shape_set, graph::Handle& handle, const graph::AutotuneConfig& config,
                const graph::AutotuneStorageConfig& storage, const TuneOptions& options) {
  auto fail = [&](int code, std::string message) {
    p.exit_code = code;
    p.error = std::move(message);
  };
  Result<graph::Graph> made = graph::make_graph(file, shape_set);
  if (!made.ok()) return fail(2, made.error().message());
  graph::Graph& g = *made;
  if (Error e = g.build_operation_graph(&handle); e.is_bad()) return fail(2, e.message());
  const bool budgeted = options.time_budget_s > 0;
  const bool from_other_file = !options.incumbents_file.empty();
  const bool keep_unless_faster = options.keep_unless_faster || from_other_file;
  const bool look_up = ((keep_unless_faster && !from_other_file) || budgeted) && !storage.file_path.empty() &&
                       !storage.delete_all_existing_content;
  const std::optional<StoredWinner> found = look_up ? find_stored_winner(storage.file_path, g, handle) : std::nullopt;
  // A budgeted run continues an earlier one: what it finished stays.
  if (budgeted && found && found->complete) {
    p.not_tuned = fmt::format("already tuned: '{}' ({}) is stored complete", found->engine_name, found->where);
    return;
  }
  if (config.deadline && std::chrono::steady_clock::now() >= *config.deadline) {
    p.not_tuned = fmt::format("not tuned: the time budget of {:g} s ran out", options.time_budget_s);
    p.budget_spent = true;
    return;
  }
  // With --require-stable the winner is stored only once its measurement is
  // known to be reliable, so an entry already in the file is never replaced
  // by one that is not. With --keep-unless-faster the stored winner is
  // looked up first, and the new one written only once it has beaten it.
  // Isolated candidates are measured in children: this process writes.
  std::optional<StoredWinner> stored;
  if (keep_unless_faster) stored = from_other_file ? find_stored_winner(options.incumbents_file, g, handle) : found;
  const bool write_after = options.require_stable || stored.has_value() || options.isolate;
  if (options.isolate) {
    tune_isolated(p, g, graph_path, config, options);
  } else {
    tune_in_process(p, g, handle, config, write_after ? graph::AutotuneStorageConfig{} : storage, options);
  }
  if (p.exit_code != 0) return;
  const graph::AutotuneResult& winner = p.results.front();
  p.budget_spent = winner.budget_ran_out;
  if (!winner.unreliable_reason.empty()) {
    const std::string why = fmt::format("the winner '{}' {} has an unreliable measurement: {}", winner.engine_name,
                                        graph::describe_knob_settings(winner.knob_settings), winner.unreliable_reason);
    if (options.require_stable) {
      p.unstable = true;
      return fail(kTuningFailure, why + " (--require-stable: not stored)");
    }
    fmt::print(stderr, "{}: {} [{}]: {}\n", options.program, p.file, p.shape_set, why);
  }
  const graph::AutotuneResult* to_store = &winner;
  if (stored) {
    const KeepDecision decision = decide_keep(*stored, p.results, handle, config);
    p.stored_winner = decision.why;
    fmt::print(stderr, "{}: {} [{}]: {}\n", options.program, p.file, p.shape_set, decision.why);
    if (decision.keep && !from_other_file) return;  // the entry stays as it is
    // Kept from another file (--incumbents): the output gets the stored
    // winner as this run measured it.
    if (decision.keep) to_store = decision.kept;
  }
  if (write_after && !storage.file_path.empty()) {
    const graph::OverrideWriteContext context{handle.device(), handle.registry()};
    Result<graph::OverrideWriteReport> written =
        graph::write_autotune_override(g.operation_graph(), *to_store, context, storage);
    if (!written.ok()) {
      const bool refused = written.error().code() == ErrorCode::INVALID_VALUE;
      return fail(output_exit_code(written.error(), refused ? kBadInput : kTuningFailure), written.error().message());
    }
  }
}

}  // namespace tunekit::cli
