// A tunekit driver whose two engines run a single pointwise ReLU at speeds the
// environment sets, so that the tests of `tunekit check` can make a stored
// winner stay the fastest, fall behind or fail, whatever the machine:
//   TUNEKIT_TEST_DELAY_A_US, TUNEKIT_TEST_DELAY_B_US  microseconds each
//       execution of "relu_a" (9101) and "relu_b" (9102) waits (default 0)
//   TUNEKIT_TEST_FAIL_A=1  "relu_a" fails every execution
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "tunekit/driver/driver.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

long environment_number(const char* name) {
  const char* text = std::getenv(name);
  return text ? std::atol(text) : 0;
}

class DelayedRelu final : public ExecutionKernel {
 public:
  DelayedRelu(const Operation& op, long delay_us, bool fails)
      : in_(op.input("IN_0")), out_(op.output("OUT_0")), delay_us_(delay_us), fails_(fails) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    if (fails_) return {ErrorCode::EXECUTION_FAILED, "relu_a fails on purpose (TUNEKIT_TEST_FAIL_A)"};
    if (delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay_us_));
    const float* in = static_cast<const float*>(args.variant_pack.at(in_->get_uid()));
    float* out = static_cast<float*>(args.variant_pack.at(out_->get_uid()));
    const std::int64_t count = in_->span_elements().value();
    for (std::int64_t i = 0; i < count; ++i) out[i] = std::max(in[i], 0.0f);
    return Error::ok();
  }

 private:
  Tensor in_, out_;
  long delay_us_;
  bool fails_;
};

class DelayedReluEngine final : public Engine {
 public:
  DelayedReluEngine(EngineDescriptor descriptor, const char* delay_variable, const char* fail_variable)
      : descriptor_(std::move(descriptor)), delay_variable_(delay_variable), fail_variable_(fail_variable) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device&) const override {
    if (graph.operations().size() != 1 || graph.operations()[0].kind != OperationKind::POINTWISE) {
      return {ErrorCode::NOT_SUPPORTED, "only a single pointwise operation"};
    }
    return Error::ok();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph&, const KnobValues&) const override { return 0; }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues&,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    const bool fails = fail_variable_ != nullptr && environment_number(fail_variable_) == 1;
    return std::unique_ptr<ExecutionKernel>(
        new DelayedRelu(graph.operations()[0], environment_number(delay_variable_), fails));
  }

 private:
  EngineDescriptor descriptor_;
  const char* delay_variable_;
  const char* fail_variable_;
};

Error register_delayed_engines(EngineRegistry& registry) {
  TUNEKIT_RETURN_IF_ERROR(registry.add_engine(std::make_shared<DelayedReluEngine>(
      EngineDescriptor{9101, "relu_a", {}, 1, "relu after TUNEKIT_TEST_DELAY_A_US"}, "TUNEKIT_TEST_DELAY_A_US",
      "TUNEKIT_TEST_FAIL_A")));
  return registry.add_engine(std::make_shared<DelayedReluEngine>(
      EngineDescriptor{9102, "relu_b", {}, 2, "relu after TUNEKIT_TEST_DELAY_B_US"}, "TUNEKIT_TEST_DELAY_B_US",
      nullptr));
}

}  // namespace

int main(int argc, char** argv) {
  tunekit::driver::Registrations registrations;
  registrations.program = "tunekit-check-test";
  registrations.engines.push_back(register_delayed_engines);
  return tunekit::driver::run(argc, argv, registrations);
}
