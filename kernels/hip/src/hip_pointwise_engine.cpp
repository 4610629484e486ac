// HIP_POINTWISE_TUNEKIT: a graph of pointwise operations as one kernel that
// keeps intermediate results in registers (one pass over memory).
#include <fmt/format.h>

#include "hip_engine_support.hpp"
#include "hip_kernels.hpp"
#include "tunekit/engines/pointwise_pattern.hpp"
#include "tunekit/hip/tuning_defaults.hpp"

namespace tunekit::hip_engines {
namespace {

using engines::PointwisePattern;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using hip_kernels::PointwiseProgram;

// The portable defaults of kernels/hip/tuning.toml.
const hip::HipPointwiseTuning kDefaults{};

hip_kernels::PointwiseOp to_kernel(graph::PointwiseMode mode) {
  using graph::PointwiseMode;
  using hip_kernels::PointwiseOp;
  switch (mode) {
    case PointwiseMode::IDENTITY:
      return PointwiseOp::IDENTITY;
    case PointwiseMode::NEG:
      return PointwiseOp::NEG;
    case PointwiseMode::ABS:
      return PointwiseOp::ABS;
    case PointwiseMode::EXP:
      return PointwiseOp::EXP;
    case PointwiseMode::LOG:
      return PointwiseOp::LOG;
    case PointwiseMode::SQRT:
      return PointwiseOp::SQRT;
    case PointwiseMode::RELU:
      return PointwiseOp::RELU;
    case PointwiseMode::SIGMOID:
      return PointwiseOp::SIGMOID;
    case PointwiseMode::TANH:
      return PointwiseOp::TANH;
    case PointwiseMode::GELU:
      return PointwiseOp::GELU;
    case PointwiseMode::ADD:
      return PointwiseOp::ADD;
    case PointwiseMode::SUB:
      return PointwiseOp::SUB;
    case PointwiseMode::MUL:
      return PointwiseOp::MUL;
    case PointwiseMode::DIV:
      return PointwiseOp::DIV;
    case PointwiseMode::MAX:
      return PointwiseOp::MAX;
    case PointwiseMode::MIN:
      return PointwiseOp::MIN;
  }
  return PointwiseOp::IDENTITY;
}

// The pattern, if the kernel's fixed-size program holds it.
Result<PointwisePattern> match(const OperationGraph& graph) {
  Result<PointwisePattern> pattern = engines::match_pointwise(graph);
  if (!pattern.ok()) return pattern.error();
  if (pattern->tensors.size() > static_cast<std::size_t>(hip_kernels::kMaxPointwiseTensors) ||
      pattern->steps.size() > static_cast<std::size_t>(hip_kernels::kMaxPointwiseSteps)) {
    return Error(
        ErrorCode::NOT_SUPPORTED,
        fmt::format("{} tensors and {} operations: the kernel holds at most {} and {}", pattern->tensors.size(),
                    pattern->steps.size(), hip_kernels::kMaxPointwiseTensors, hip_kernels::kMaxPointwiseSteps));
  }
  return pattern;
}

class PointwiseKernel final : public ExecutionKernel {
 public:
  PointwiseKernel(PointwisePattern pattern, int threads, int items)
      : pattern_(std::move(pattern)), threads_(threads), items_(items) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& a) override {
    PointwiseProgram program;
    program.elements = pattern_.elements;
    program.tensor_count = static_cast<int>(pattern_.tensors.size());
    for (std::size_t t = 0; t < pattern_.tensors.size(); ++t) {
      const engines::PointwiseTensor& tensor = pattern_.tensors[t];
      program.period[t] = tensor.period;
      if (tensor.is_virtual) continue;
      const auto found = a.variant_pack.find(tensor.uid);
      if (found == a.variant_pack.end() || found->second == nullptr) {
        return {ErrorCode::INVALID_VALUE,
                fmt::format("HIP_POINTWISE_TUNEKIT: no buffer for tensor uid {}", tensor.uid)};
      }
      if (tensor.written) {
        program.outputs[t] = static_cast<float*>(found->second);
      } else {
        program.inputs[t] = static_cast<const float*>(found->second);
      }
    }
    program.step_count = static_cast<int>(pattern_.steps.size());
    for (std::size_t s = 0; s < pattern_.steps.size(); ++s) {
      program.op[s] = to_kernel(pattern_.steps[s].mode);
      program.in0[s] = pattern_.steps[s].in0;
      program.in1[s] = pattern_.steps[s].in1;
      program.out[s] = pattern_.steps[s].out;
    }
    return launch_status(hip_kernels::pointwise(program, threads_, items_, native_stream(a)), "HIP_POINTWISE_TUNEKIT");
  }

 private:
  PointwisePattern pattern_;
  int threads_, items_;
};

}  // namespace

std::shared_ptr<const graph::Engine> pointwise_engine() {
  return hip_pattern_engine<PointwisePattern>(
      {kPointwiseEngine,
       "HIP_POINTWISE_TUNEKIT",
       {int_choice_knob("threads_per_block", kDefaults.threads_per_block, {64, 128, 256, 512, 1024},
                        "threads of a block"),
        int_choice_knob("items_per_thread", kDefaults.items_per_thread, {1, 2, 4, 8},
                        "elements each thread handles, a block's width apart")},
       100,
       "pointwise operations on the GPU in one pass: intermediate results stay in registers"},
      match, no_workspace<PointwisePattern>,
      [](const PointwisePattern& p, const KnobValues& knobs, int) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(
            new PointwiseKernel(p, static_cast<int>(knobs.get_int("threads_per_block", kDefaults.threads_per_block)),
                                static_cast<int>(knobs.get_int("items_per_thread", kDefaults.items_per_thread))));
      });
}

}  // namespace tunekit::hip_engines
