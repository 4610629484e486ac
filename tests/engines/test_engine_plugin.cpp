// An engine plugin for the tests, built four ways (TEST_PLUGIN_KIND):
//   good     one provider "test-plugin" with PLUGIN_MATMUL_TEST (7001), a
//            plain float matmul of rank 2
//   abi      the same, claiming another ABI version
//   clash    an engine with the id and name of CPU_MATMUL_TUNEKIT (100)
//   fails    registration reports a failure
#include <cstdio>
#include <cstring>

#include "tunekit/graph/engine_plugin.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

class PlainMatmul final : public ExecutionKernel {
 public:
  PlainMatmul(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t a, std::int64_t b, std::int64_t c)
      : m_(m), n_(n), k_(k), a_(a), b_(b), c_(c) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    const auto* a = static_cast<const float*>(args.variant_pack.at(a_));
    const auto* b = static_cast<const float*>(args.variant_pack.at(b_));
    auto* c = static_cast<float*>(args.variant_pack.at(c_));
    for (std::int64_t i = 0; i < m_; ++i) {
      for (std::int64_t j = 0; j < n_; ++j) {
        float sum = 0;
        for (std::int64_t p = 0; p < k_; ++p) sum += a[i * k_ + p] * b[p * n_ + j];
        c[i * n_ + j] = sum;
      }
    }
    return Error::ok();
  }

 private:
  std::int64_t m_, n_, k_, a_, b_, c_;
};

class PlainMatmulEngine final : public Engine {
 public:
  explicit PlainMatmulEngine(EngineDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device&) const override {
    if (graph.operations().size() != 1 || graph.operations()[0].kind != OperationKind::MATMUL ||
        graph.operations()[0].input("A")->get_dim().size() != 2) {
      return {ErrorCode::NOT_SUPPORTED, "only one rank-2 matmul"};
    }
    return Error::ok();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph&, const KnobValues&) const override {
    return std::int64_t{0};
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues&,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    const Operation& op = graph.operations()[0];
    const auto& a = op.input("A")->get_dim();
    return std::unique_ptr<ExecutionKernel>(new PlainMatmul(a[0], op.input("B")->get_dim()[1], a[1],
                                                            op.input("A")->get_uid(), op.input("B")->get_uid(),
                                                            op.output("C")->get_uid()));
  }

 private:
  EngineDescriptor descriptor_;
};

class TestProvider final : public EngineProvider {
 public:
  std::string name() const override { return "test-plugin"; }
  std::string catalogue_version() const override { return "test-plugin-1"; }
  std::vector<std::shared_ptr<const Engine>> engines() const override {
#if TEST_PLUGIN_CLASH
    return {std::make_shared<PlainMatmulEngine>(EngineDescriptor{100, "CPU_MATMUL_TUNEKIT", {}, 0, "clashes"})};
#else
    return {std::make_shared<PlainMatmulEngine>(
        EngineDescriptor{7001, "PLUGIN_MATMUL_TEST", {}, 200, "a plain matmul loaded from a plugin"})};
#endif
  }
};

}  // namespace

TUNEKIT_ENGINE_PLUGIN_ABI_VERSION_FUNCTION {
#if TEST_PLUGIN_WRONG_ABI
  return kEnginePluginAbiVersion + 998;
#else
  return kEnginePluginAbiVersion;
#endif
}

TUNEKIT_ENGINE_PLUGIN_REGISTER_FUNCTION {
#if TEST_PLUGIN_FAILS
  (void)registry;
  std::snprintf(message, message_size, "the test plugin refuses on purpose");
  return 1;
#else
  const Error added = registry->add_provider(TestProvider());
  if (added.is_bad()) {
    std::snprintf(message, message_size, "%s", added.message().c_str());
    return 1;
  }
  return 0;
#endif
}
