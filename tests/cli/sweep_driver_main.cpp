// A tunekit driver whose engines have knobs of known ranges, so that the
// tests of `tunekit tune` can check which knob values a sweep tries. Both
// engines compute a single rank-2 float matmul with plain loops (the knobs
// change nothing): "grid_matmul" has tile 16..64 step 16 (default 32, four
// valid values) and global.benchmarking (so exhaustive mode primes it),
// "wide_matmul" has block 1..1000 (default 100, sampled), "four_knob_matmul"
// has four knobs 1..16 (default 1), whose 65536 combinations exceed the
// sweep limit.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tunekit/driver/driver.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

class MatmulKernel final : public ExecutionKernel {
 public:
  explicit MatmulKernel(const Operation& op) : a_(op.input("A")), b_(op.input("B")), c_(op.output("C")) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    const float* a = static_cast<const float*>(args.variant_pack.at(a_->get_uid()));
    const float* b = static_cast<const float*>(args.variant_pack.at(b_->get_uid()));
    float* c = static_cast<float*>(args.variant_pack.at(c_->get_uid()));
    const std::int64_t m = a_->get_dim()[0], k = a_->get_dim()[1], n = b_->get_dim()[1];
    const auto& sa = a_->get_stride();
    const auto& sb = b_->get_stride();
    const auto& sc = c_->get_stride();
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (std::int64_t p = 0; p < k; ++p) sum += a[i * sa[0] + p * sa[1]] * b[p * sb[0] + j * sb[1]];
        c[i * sc[0] + j * sc[1]] = sum;
      }
    }
    return Error::ok();
  }

 private:
  Tensor a_, b_, c_;
};

class MatmulEngine final : public Engine {
 public:
  explicit MatmulEngine(EngineDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device&) const override {
    if (graph.operations().size() != 1 || graph.operations()[0].kind != OperationKind::MATMUL) {
      return {ErrorCode::NOT_SUPPORTED, "only a single matmul"};
    }
    const Operation& op = graph.operations()[0];
    for (const Tensor& t : {op.input("A"), op.input("B"), op.output("C")}) {
      if (!t || t->get_data_type() != DataType::FLOAT || t->get_dim().size() != 2) {
        return {ErrorCode::NOT_SUPPORTED, "only rank-2 float tensors"};
      }
    }
    return Error::ok();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph&, const KnobValues&) const override { return 0; }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues&,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    return std::unique_ptr<ExecutionKernel>(new MatmulKernel(graph.operations()[0]));
  }

 private:
  EngineDescriptor descriptor_;
};

Knob int_knob(std::string id, std::int64_t default_value, std::int64_t min, std::int64_t max, std::int64_t step) {
  Knob knob;
  knob.id = std::move(id);
  knob.type = KnobType::INT;
  knob.default_value = default_value;
  knob.min_value = min;
  knob.max_value = max;
  knob.step = step;
  return knob;
}

Error register_sweep_engines(EngineRegistry& registry) {
  TUNEKIT_RETURN_IF_ERROR(registry.add_engine(std::make_shared<MatmulEngine>(
      EngineDescriptor{9001,
                       "grid_matmul",
                       {int_knob("tile", 32, 16, 64, 16), int_knob(std::string(kBenchmarkingKnob), 0, 0, 1, 0)},
                       1,
                       "tile 16..64 step 16"})));
  TUNEKIT_RETURN_IF_ERROR(registry.add_engine(std::make_shared<MatmulEngine>(
      EngineDescriptor{9002, "wide_matmul", {int_knob("block", 100, 1, 1000, 1)}, 2, "block 1..1000"})));
  std::vector<Knob> four;
  for (const char* id : {"w", "x", "y", "z"}) four.push_back(int_knob(id, 1, 1, 16, 1));
  return registry.add_engine(
      std::make_shared<MatmulEngine>(EngineDescriptor{9003, "four_knob_matmul", four, 3, "four knobs 1..16"}));
}

}  // namespace

int main(int argc, char** argv) {
  tunekit::driver::Registrations registrations;
  registrations.program = "tunekit-sweep-test";
  registrations.engines.push_back(register_sweep_engines);
  return tunekit::driver::run(argc, argv, registrations);
}
