// tunekit's reductions: CPU_REDUCTION_TUNEKIT splits the outputs between the
// threads (each reduces its [reduced, inner] slabs, the inner dim
// contiguous), CPU_REDUCTION_TUNEKIT_SPLIT splits the reduced dim (each
// thread reduces a range of it into partial results in the workspace, which
// one pass combines): the second one for few outputs over a long reduced dim.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/reduction_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::ReductionMode;

float identity(ReductionMode mode) {
  switch (mode) {
    case ReductionMode::MAX: return -std::numeric_limits<float>::infinity();
    case ReductionMode::MIN: return std::numeric_limits<float>::infinity();
    case ReductionMode::PROD: return 1.0f;
    default: return 0.0f;
  }
}

// acc[i] = combine(acc[i], x[i]) for the mode (NORM2 accumulates squares).
void accumulate(ReductionMode mode, float* __restrict acc, const float* __restrict x, std::int64_t n) {
  switch (mode) {
    case ReductionMode::MAX:
      for (std::int64_t i = 0; i < n; ++i) acc[i] = std::max(acc[i], x[i]);
      return;
    case ReductionMode::MIN:
      for (std::int64_t i = 0; i < n; ++i) acc[i] = std::min(acc[i], x[i]);
      return;
    case ReductionMode::PROD:
      for (std::int64_t i = 0; i < n; ++i) acc[i] *= x[i];
      return;
    case ReductionMode::NORM2:
      for (std::int64_t i = 0; i < n; ++i) acc[i] += x[i] * x[i];
      return;
    default:
      for (std::int64_t i = 0; i < n; ++i) acc[i] += x[i];
      return;
  }
}

// Combines partial results of the same mode (squares add for NORM2).
void combine(ReductionMode mode, float* __restrict acc, const float* __restrict partial, std::int64_t n) {
  accumulate(mode == ReductionMode::NORM2 ? ReductionMode::SUM : mode, acc, partial, n);
}

void finish(ReductionMode mode, float* y, std::int64_t n, std::int64_t reduced) {
  if (mode == ReductionMode::MEAN) {
    for (std::int64_t i = 0; i < n; ++i) y[i] /= static_cast<float>(reduced);
  } else if (mode == ReductionMode::NORM2) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::sqrt(y[i]);
  }
}

// One output row (inner == 1) with one combining operation: sixteen partial
// results (enough independent chains to hide the add latency on SSE2, the
// instruction set this file is compiled for), the mode decided once per row.
template <typename Step, typename Combine>
float reduce_row_with(Step step, Combine combine_lanes, float init, const float* __restrict x, std::int64_t n) {
  constexpr int kLanes = 16;
  float lanes[kLanes];
  std::fill_n(lanes, kLanes, init);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] = step(lanes[l], x[i + l]);
  }
  for (; i < n; ++i) lanes[0] = step(lanes[0], x[i]);
  float total = lanes[0];
  for (int l = 1; l < kLanes; ++l) total = combine_lanes(total, lanes[l]);
  return total;
}

float reduce_row(ReductionMode mode, const float* x, std::int64_t n) {
  const float init = identity(mode);
  const auto add = [](float a, float v) { return a + v; };
  switch (mode) {
    case ReductionMode::MAX: {
      const auto larger = [](float a, float v) { return std::max(a, v); };
      return reduce_row_with(larger, larger, init, x, n);
    }
    case ReductionMode::MIN: {
      const auto smaller = [](float a, float v) { return std::min(a, v); };
      return reduce_row_with(smaller, smaller, init, x, n);
    }
    case ReductionMode::PROD: {
      const auto times = [](float a, float v) { return a * v; };
      return reduce_row_with(times, times, init, x, n);
    }
    case ReductionMode::NORM2: return reduce_row_with([](float a, float v) { return a + v * v; }, add, init, x, n);
    default: return reduce_row_with(add, add, init, x, n);
  }
}

// Reduces rows [begin, end) of the [reduced, inner] slab at x into y (inner floats).
void reduce_range(const ReductionPattern& p, const float* x, std::int64_t begin, std::int64_t end, float* y) {
  std::fill_n(y, p.inner, identity(p.mode));
  if (p.inner == 1) {
    y[0] = reduce_row(p.mode, x + begin, end - begin);
    return;
  }
  for (std::int64_t r = begin; r < end; ++r) accumulate(p.mode, y, x + r * p.inner, p.inner);
}

enum class Split { OUTPUTS, REDUCED };

class ReductionKernel final : public ExecutionKernel {
 public:
  ReductionKernel(ReductionPattern pattern, Split split, int threads, std::int64_t workspace)
      : p_(std::move(pattern)), split_(split), threads_(threads), workspace_(workspace) {}
  std::int64_t workspace_size() const override { return workspace_; }
  static std::int64_t workspace_bytes(const ReductionPattern& p, Split split, std::int64_t threads) {
    return split == Split::REDUCED ? threads * p.outer * p.inner * static_cast<std::int64_t>(sizeof(float)) : 0;
  }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<void*> xb = find_buffer(args.variant_pack, p_.x_uid, "X");
    if (!xb.ok()) return xb.error();
    Result<void*> yb = find_buffer(args.variant_pack, p_.y_uid, "Y");
    if (!yb.ok()) return yb.error();
    const auto* x = static_cast<const float*>(*xb);
    auto* y = static_cast<float*>(*yb);
    const std::int64_t slab = p_.reduced * p_.inner;
    if (split_ == Split::OUTPUTS) {
      cpu::parallel_for(threads_, p_.outer, [&](std::int64_t o) {
        reduce_range(p_, x + o * slab, 0, p_.reduced, y + o * p_.inner);
        finish(p_.mode, y + o * p_.inner, p_.inner, p_.reduced);
      });
      return Error::ok();
    }
    auto* partials = static_cast<float*>(args.workspace);
    const std::int64_t outputs = p_.outer * p_.inner;
    cpu::run_on_team(threads_, [&] {
      const int t = omp_get_thread_num();
      const int count = omp_get_num_threads();
      const std::int64_t begin = p_.reduced * t / count, end = p_.reduced * (t + 1) / count;
      for (std::int64_t o = 0; o < p_.outer; ++o) {
        reduce_range(p_, x + o * slab, begin, end, partials + t * outputs + o * p_.inner);
      }
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::int64_t o = 0; o < p_.outer; ++o) {
        float* out = y + o * p_.inner;
        std::copy_n(partials + o * p_.inner, p_.inner, out);
        for (int other = 1; other < count; ++other) combine(p_.mode, out, partials + other * outputs + o * p_.inner, p_.inner);
        finish(p_.mode, out, p_.inner, p_.reduced);
      }
    });
    return Error::ok();
  }

 private:
  ReductionPattern p_;
  Split split_;
  int threads_;
  std::int64_t workspace_;
};

std::shared_ptr<const graph::Engine> reduction_engine(EngineDescriptor descriptor, Split split) {
  return std::make_shared<PatternEngine<ReductionPattern>>(
      std::move(descriptor), match_reduction,
      [split](const ReductionPattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        return ReductionKernel::workspace_bytes(p, split, knobs.get_int("threads", 1));
      },
      [split](const ReductionPattern& p, const KnobValues& knobs, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        // Partials for the knob's team, as the estimate sized them (a capped
        // team uses fewer of them).
        return std::unique_ptr<ExecutionKernel>(
            new ReductionKernel(p, split, threads, ReductionKernel::workspace_bytes(p, split, knobs.get_int("threads", 1))));
      });
}

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_reduction_engines() {
  return {reduction_engine(EngineDescriptor{kReductionTunekitEngine, "CPU_REDUCTION_TUNEKIT", {threads_knob()}, 15,
                                            "the outputs split between the threads, each reducing its slabs"},
                           Split::OUTPUTS),
          reduction_engine(EngineDescriptor{kReductionTunekitSplitEngine, "CPU_REDUCTION_TUNEKIT_SPLIT",
                                            {threads_knob()}, 16,
                                            "the reduced dim split between the threads into partial results in the "
                                            "workspace, combined in one pass"},
                           Split::REDUCED)};
}

}  // namespace tunekit::engines::detail
