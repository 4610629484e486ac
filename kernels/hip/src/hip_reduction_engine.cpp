// HIP_REDUCTION_TUNEKIT: sum, mean, max, min, product and 2-norm over one
// block of consecutive dims (the CPU engines' reduction pattern).
#include <fmt/format.h>

#include "hip_engine_support.hpp"
#include "hip_kernels.hpp"
#include "tunekit/engines/reduction_pattern.hpp"
#include "tunekit/hip/tuning_defaults.hpp"

namespace tunekit::hip_engines {
namespace {

using engines::ReductionPattern;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

// The portable defaults of kernels/hip/tuning.toml.
const hip::HipReductionTuning kDefaults{};

hip_kernels::ReductionOp to_kernel(graph::ReductionMode mode) {
  using graph::ReductionMode;
  using hip_kernels::ReductionOp;
  switch (mode) {
    case ReductionMode::SUM:
      return ReductionOp::SUM;
    case ReductionMode::MEAN:
      return ReductionOp::MEAN;
    case ReductionMode::MAX:
      return ReductionOp::MAX;
    case ReductionMode::MIN:
      return ReductionOp::MIN;
    case ReductionMode::PROD:
      return ReductionOp::PROD;
    case ReductionMode::NORM2:
      return ReductionOp::NORM2;
  }
  return ReductionOp::SUM;
}

class ReductionKernel final : public ExecutionKernel {
 public:
  ReductionKernel(ReductionPattern pattern, int threads) : pattern_(std::move(pattern)), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& a) override {
    const auto x = a.variant_pack.find(pattern_.x_uid);
    const auto y = a.variant_pack.find(pattern_.y_uid);
    if (x == a.variant_pack.end() || y == a.variant_pack.end() || x->second == nullptr || y->second == nullptr) {
      return {ErrorCode::INVALID_VALUE, "HIP_REDUCTION_TUNEKIT: the variant pack lacks X or Y"};
    }
    hip_kernels::ReductionArgs args;
    args.op = to_kernel(pattern_.mode);
    args.outer = pattern_.outer, args.reduced = pattern_.reduced, args.inner = pattern_.inner;
    args.x = static_cast<const float*>(x->second);
    args.y = static_cast<float*>(y->second);
    return launch_status(hip_kernels::reduction(args, threads_, native_stream(a)), "HIP_REDUCTION_TUNEKIT");
  }

 private:
  ReductionPattern pattern_;
  int threads_;
};

}  // namespace

std::shared_ptr<const graph::Engine> reduction_engine() {
  return hip_pattern_engine<ReductionPattern>(
      {kReductionEngine,
       "HIP_REDUCTION_TUNEKIT",
       {int_choice_knob("threads_per_block", kDefaults.threads_per_block, {64, 128, 256, 512, 1024},
                        "threads of a block: a block reduces one row when the reduced elements are contiguous")},
       100,
       "reductions on the GPU: a block per row through shared memory, or a thread per output element"},
      engines::match_reduction, no_workspace<ReductionPattern>,
      [](const ReductionPattern& p, const KnobValues& knobs, int) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(
            new ReductionKernel(p, static_cast<int>(knobs.get_int("threads_per_block", kDefaults.threads_per_block))));
      });
}

}  // namespace tunekit::hip_engines
