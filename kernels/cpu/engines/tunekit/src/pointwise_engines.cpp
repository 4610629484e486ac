// tunekit's pointwise engine: the graph's operations applied block by block
// (kPointwiseBlock elements, a few KiB that stay in the L1 cache), each
// operation over the whole block before the next, so a chain reads its
// inputs and writes its outputs once; intermediate results live in a block
// of scratch per thread. The operations are tunekit_cpu's elementwise
// kernels on raw arrays (tunekit/cpu/elementwise_arrays.hpp), GELU in one
// pass of its own. Blocks are split between the threads.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/pointwise_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::PointwiseMode;

constexpr std::int64_t kPointwiseBlock = 2048;

// An operand within one block: contiguous from `data` (period 0), or
// repeating every `period` elements of `data`, `phase` elements in.
struct Operand {
  const float* data = nullptr;
  std::int64_t period = 0;
  std::int64_t phase = 0;
};

// out[0, n) = op(a, b) (b unused by unary operations), split into the pieces
// where neither broadcast operand wraps around.
template <typename Apply>
void over_pieces(const Operand& a, const Operand& b, std::int64_t n, Apply apply) {
  for (std::int64_t j = 0; j < n;) {
    std::int64_t take = n - j;
    for (const Operand* x : {&a, &b}) {
      if (x->period > 1) take = std::min(take, x->period - (x->phase + j) % x->period);
    }
    auto at = [&](const Operand& x) -> std::pair<const float*, std::int64_t> {
      if (x.period == 0) return {x.data + j, 1};
      if (x.period == 1) return {x.data, 0};
      return {x.data + (x.phase + j) % x.period, 1};
    };
    apply(at(a), at(b), j, take);
    j += take;
  }
}

// out[0, n) = f(a) for an elementwise f(in, out, count) on arrays: on each
// contiguous piece, or once for a broadcast scalar, whose result fills the
// piece.
template <typename Elementwise>
void unary_pieces(const Operand& a, float* out, std::int64_t n, Elementwise f) {
  over_pieces(a, a, n, [&](auto x, auto, std::int64_t j, std::int64_t take) {
    if (x.second == 1) {
      f(x.first, out + j, take);
    } else {
      f(x.first, out + j, 1);
      std::fill(out + j + 1, out + j + take, out[j]);
    }
  });
}

void unary(cpu::UnaryOp op, const Operand& a, float* out, std::int64_t n) {
  unary_pieces(a, out, n, [op](const float* in, float* o, std::int64_t count) {
    (void)cpu::unary_float_array(op, in, o, count);
  });
}

void binary(cpu::BinaryOp op, const Operand& a, const Operand& b, float* out, std::int64_t n) {
  over_pieces(a, b, n, [&](auto x, auto y, std::int64_t j, std::int64_t take) {
    (void)cpu::binary_float_array(op, x.first, x.second, y.first, y.second, out + j, take);
  });
}

Operand contiguous(const float* data) { return {data, 0, 0}; }

void apply(PointwiseMode mode, const Operand& a, const Operand& b, float* out, std::int64_t n) {
  switch (mode) {
    case PointwiseMode::IDENTITY:
      return unary_pieces(a, out, n, [](const float* in, float* o, std::int64_t count) {
        std::memmove(o, in, static_cast<std::size_t>(count) * sizeof(float));
      });
    case PointwiseMode::NEG: return unary(cpu::UnaryOp::NEG, a, out, n);
    case PointwiseMode::ABS: return unary(cpu::UnaryOp::ABS, a, out, n);
    case PointwiseMode::EXP: return unary(cpu::UnaryOp::EXP, a, out, n);
    case PointwiseMode::LOG: return unary(cpu::UnaryOp::LOG, a, out, n);
    case PointwiseMode::SQRT: return unary(cpu::UnaryOp::SQRT, a, out, n);
    case PointwiseMode::RELU: return unary(cpu::UnaryOp::RELU, a, out, n);
    case PointwiseMode::SIGMOID: return unary(cpu::UnaryOp::SIGMOID, a, out, n);
    case PointwiseMode::TANH: return unary(cpu::UnaryOp::TANH, a, out, n);
    case PointwiseMode::GELU: return unary_pieces(a, out, n, cpu::gelu_float_array);
    case PointwiseMode::ADD: return binary(cpu::BinaryOp::ADD, a, b, out, n);
    case PointwiseMode::SUB: return binary(cpu::BinaryOp::SUB, a, b, out, n);
    case PointwiseMode::MUL: return binary(cpu::BinaryOp::MUL, a, b, out, n);
    case PointwiseMode::DIV: return binary(cpu::BinaryOp::DIV, a, b, out, n);
    case PointwiseMode::MAX: return binary(cpu::BinaryOp::MAX, a, b, out, n);
    case PointwiseMode::MIN: return binary(cpu::BinaryOp::MIN, a, b, out, n);
  }
}

class PointwiseKernel final : public ExecutionKernel {
 public:
  // `workspace_threads`: the thread knob as given, which the estimate saw
  // (`threads`, the team, is at most that).
  PointwiseKernel(PointwisePattern pattern, int threads, std::int64_t workspace_threads)
      : p_(std::move(pattern)), threads_(threads), workspace_threads_(workspace_threads) {
    int next = 0;
    for (const PointwiseTensor& t : p_.tensors) scratch_slot_.push_back(t.is_virtual ? next++ : -1);
  }
  std::int64_t workspace_size() const override {
    return workspace_threads_ * p_.virtual_count() * kPointwiseBlock * static_cast<std::int64_t>(sizeof(float));
  }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    std::vector<float*> base(p_.tensors.size(), nullptr);
    for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
      if (p_.tensors[i].is_virtual) continue;
      Result<float*> buffer = float_buffer(args.variant_pack, p_.tensors[i].uid, "a pointwise operand");
      if (!buffer.ok()) return buffer.error();
      base[i] = *buffer;
    }
    const std::int64_t blocks = (p_.elements + kPointwiseBlock - 1) / kPointwiseBlock;
    const std::int64_t per_thread = p_.virtual_count() * kPointwiseBlock;
    auto* workspace = static_cast<float*>(args.workspace);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t begin = block * kPointwiseBlock;
      const std::int64_t n = std::min(kPointwiseBlock, p_.elements - begin);
      float* scratch = workspace ? workspace + omp_get_thread_num() * per_thread : nullptr;
      auto storage = [&](int t) -> float* {
        if (p_.tensors[static_cast<std::size_t>(t)].is_virtual) return scratch + scratch_slot_[static_cast<std::size_t>(t)] * kPointwiseBlock;
        return base[static_cast<std::size_t>(t)] + begin;
      };
      auto operand = [&](int t) -> Operand {
        if (t < 0) return {};
        const PointwiseTensor& tensor = p_.tensors[static_cast<std::size_t>(t)];
        if (tensor.period == p_.elements) return contiguous(storage(t));
        return {base[static_cast<std::size_t>(t)], tensor.period, begin % tensor.period};
      };
      for (const PointwiseStep& step : p_.steps) apply(step.mode, operand(step.in0), operand(step.in1), storage(step.out), n);
    }
    return Error::ok();
  }

 private:
  PointwisePattern p_;
  int threads_;
  std::int64_t workspace_threads_;
  std::vector<int> scratch_slot_;  // per tensor: its block in a thread's scratch, -1 when not virtual
};

std::int64_t knob_threads(const KnobValues& knobs) { return std::max<std::int64_t>(1, knobs.get_int("threads", 1)); }

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_pointwise_engines() {
  return {std::make_shared<PatternEngine<PointwisePattern>>(
      EngineDescriptor{kPointwiseTunekitEngine, "CPU_POINTWISE_TUNEKIT", {threads_knob()}, 13,
                       "the operations applied block by block (2048 elements) on tunekit_cpu's elementwise kernels, "
                       "so a chain passes over memory once; intermediate results in per-thread scratch blocks"},
      match_pointwise,
      [](const PointwisePattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        return knob_threads(knobs) * p.virtual_count() * kPointwiseBlock * static_cast<std::int64_t>(sizeof(float));
      },
      [](const PointwisePattern& p, const KnobValues& knobs, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(new PointwiseKernel(p, threads, knob_threads(knobs)));
      })};
}

}  // namespace tunekit::engines::detail
