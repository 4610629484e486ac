// An engine plugin whose engines fail the way real engines do, for the tests
// of `tune --isolate`: each claims a single rank-2 float matmul and then, when
// executed, crashes (SIGSEGV), aborts (SIGABRT), hangs (sleeps forever) or
// returns a wrong result at once (zeros: fast, so only the result check stops
// it). Compile succeeds for all of them, so the failure comes from running.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "tunekit/graph/engine_plugin.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

enum class Fault { CRASH, ABORT, HANG, WRONG };

class FaultyKernel final : public ExecutionKernel {
 public:
  FaultyKernel(Fault fault, std::int64_t c_uid, std::int64_t c_bytes) : fault_(fault), c_uid_(c_uid), c_bytes_(c_bytes) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    switch (fault_) {
      case Fault::CRASH: std::raise(SIGSEGV); break;
      case Fault::ABORT: std::abort();
      case Fault::HANG:
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
      case Fault::WRONG: std::memset(args.variant_pack.at(c_uid_), 0, static_cast<std::size_t>(c_bytes_)); break;
    }
    return Error::ok();
  }

 private:
  Fault fault_;
  std::int64_t c_uid_, c_bytes_;
};

class FaultyEngine final : public Engine {
 public:
  FaultyEngine(EngineDescriptor descriptor, Fault fault) : descriptor_(std::move(descriptor)), fault_(fault) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device&) const override {
    if (graph.operations().size() != 1 || graph.operations()[0].kind != OperationKind::MATMUL) {
      return {ErrorCode::NOT_SUPPORTED, "only one matmul"};
    }
    for (const Tensor& t : {graph.operations()[0].input("A"), graph.operations()[0].output("C")}) {
      if (!t || t->get_data_type() != DataType::FLOAT || t->get_dim().size() != 2) {
        return {ErrorCode::NOT_SUPPORTED, "only rank-2 float tensors"};
      }
    }
    return Error::ok();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph&, const KnobValues&) const override {
    return std::int64_t{0};
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues&,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    const Tensor& c = graph.operations()[0].output("C");
    const std::int64_t bytes = c->get_dim()[0] * c->get_dim()[1] * static_cast<std::int64_t>(sizeof(float));
    return std::unique_ptr<ExecutionKernel>(new FaultyKernel(fault_, c->get_uid(), bytes));
  }

 private:
  EngineDescriptor descriptor_;
  Fault fault_;
};

class FaultyProvider final : public EngineProvider {
 public:
  std::string name() const override { return "test-faulty"; }
  std::string catalogue_version() const override { return "test-faulty-1"; }
  std::vector<std::shared_ptr<const Engine>> engines() const override {
    // Priorities before every CPU engine's, so that an in-process run meets them first.
    return {std::make_shared<FaultyEngine>(EngineDescriptor{7101, "PLUGIN_MATMUL_CRASHES", {}, -40, "raises SIGSEGV"},
                                           Fault::CRASH),
            std::make_shared<FaultyEngine>(EngineDescriptor{7102, "PLUGIN_MATMUL_ABORTS", {}, -30, "calls abort()"},
                                           Fault::ABORT),
            std::make_shared<FaultyEngine>(EngineDescriptor{7103, "PLUGIN_MATMUL_HANGS", {}, -20, "never returns"},
                                           Fault::HANG),
            std::make_shared<FaultyEngine>(EngineDescriptor{7104, "PLUGIN_MATMUL_WRONG", {}, -10, "writes zeros"},
                                           Fault::WRONG)};
  }
};

}  // namespace

TUNEKIT_ENGINE_PLUGIN_ABI_VERSION_FUNCTION { return kEnginePluginAbiVersion; }

TUNEKIT_ENGINE_PLUGIN_REGISTER_FUNCTION {
  const Error added = registry->add_provider(FaultyProvider());
  if (added.is_bad()) {
    std::snprintf(message, message_size, "%s", added.message().c_str());
    return 1;
  }
  return 0;
}
