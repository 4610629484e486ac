// The engine interface: an engine declares its identity and knobs, says
// whether it applies to a graph, estimates its workspace before compiling,
// and compiles (graph, knobs) into a kernel that executes with a variant
// pack, a workspace and a stream. Providers group engines for registration.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/graph/knob.hpp"
#include "tunekit/graph/operation_graph.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::graph {

// Tensor uid -> device pointer of its buffer.
using VariantPack = std::unordered_map<std::int64_t, void*>;

struct EngineDescriptor {
  std::int64_t id = -1;  // stable across releases: stored in override files
  std::string name;      // unique across the registry
  std::vector<Knob> knobs;
  // Order under the A and B heuristic modes: lower comes first.
  int heuristic_priority = 0;
  std::string description;
  // A reference engine: written to be plainly right rather than fast, the
  // oracle autotune checks every other candidate's results against
  // (AutotuneConfig::check_results).
  bool reference = false;
  // Only an oracle: left out of the heuristic order, so it is never an
  // autotune candidate nor a heuristic's choice; the result check, and a plan
  // made for its id, run it.
  bool oracle_only = false;

  // True when the engine exposes global.benchmarking (EXHAUSTIVE priming).
  bool supports_exhaustive() const;
  const Knob* find_knob(std::string_view id) const;  // null when absent
  // Defaults of every knob, overridden by settings (which must be normalized).
  KnobValues resolve(const std::vector<KnobSetting>& settings) const;
};

struct ExecutionArguments {
  const VariantPack& variant_pack;
  void* workspace;
  std::int64_t workspace_size;
  platform::Stream& stream;
};

// A compiled plan's executable part.
class ExecutionKernel {
 public:
  virtual ~ExecutionKernel() = default;
  // Second build step (allocate tables, query the final workspace); runs once
  // after compile. An error here is a finalize failure.
  virtual Error finalize() { return Error::ok(); }
  // Bytes of workspace execute needs; known after compile.
  virtual std::int64_t workspace_size() const = 0;
  virtual Error execute(const ExecutionArguments& arguments) = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const EngineDescriptor& descriptor() const = 0;
  // OK when the engine can run graph on device; otherwise NOT_SUPPORTED with the reason.
  virtual Error check_applicable(const OperationGraph& graph, const platform::Device& device) const = 0;
  // Workspace bytes expected for these knobs, before compiling (may differ from the compiled size).
  virtual Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const = 0;
  virtual Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                           platform::Device& device) const = 0;
};

class EngineProvider {
 public:
  virtual ~EngineProvider() = default;
  virtual std::string name() const = 0;
  virtual std::vector<std::shared_ptr<const Engine>> engines() const = 0;
  // Version of what the engines are and compute (ids, names, knobs,
  // algorithms). Override files record it so that entries tuned against
  // another catalogue miss. Empty: the registry derives one from the
  // descriptors, which catches changed ids, names and knobs but not changed
  // algorithms behind them.
  virtual std::string catalogue_version() const { return {}; }
};

}  // namespace tunekit::graph
