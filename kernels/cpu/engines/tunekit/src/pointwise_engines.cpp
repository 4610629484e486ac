// tunekit's pointwise engine: the graph's operations applied block by block
// (kPointwiseBlock elements, a few KiB that stay in the L1 cache), each
// operation over the whole block before the next, so a chain reads its
// inputs and writes its outputs once; intermediate results live in a block
// of scratch per thread. The operations are tunekit_cpu's elementwise
// kernels on raw arrays (tunekit/cpu/elementwise_arrays.hpp), GELU in one
// pass of its own. Blocks are split between the threads. A bfloat16 graph
// computes in float too: each block of an input is widened into the
// thread's scratch and each block of an output narrowed from it, once (a
// broadcast operand is widened whole before the blocks start).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/team.hpp"
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

// Where a pattern's tensors live while a block runs. Scratch slots (a block
// of floats each, per thread): the virtual tensors, and for a 16-bit
// pattern every tensor of the output's size (its block widened into the
// slot, or computed there and narrowed). A 16-bit broadcast operand is
// widened once into the workspace after the threads' scratch.
struct PointwiseLayout {
  std::vector<int> slot;                // per tensor: its scratch slot, -1 when read or written in place
  std::vector<std::int64_t> widened;    // per tensor: offset of its widened copy, -1 when none
  int slots = 0;
  std::int64_t widened_floats = 0;

  explicit PointwiseLayout(const PointwisePattern& p) {
    const bool narrow = p.type != DataType::FLOAT;
    for (const PointwiseTensor& t : p.tensors) {
      const bool full = t.period == p.elements;
      slot.push_back(t.is_virtual || (narrow && full) ? slots++ : -1);
      widened.push_back(narrow && !t.is_virtual && !full ? widened_floats : -1);
      if (narrow && !t.is_virtual && !full) widened_floats += t.period;
    }
  }
  std::int64_t bytes(std::int64_t threads) const {
    return (threads * slots * kPointwiseBlock + widened_floats) * static_cast<std::int64_t>(sizeof(float));
  }
};

class PointwiseKernel final : public ExecutionKernel {
 public:
  // `workspace_threads`: the thread knob as given, which the estimate saw
  // (`threads`, the team, is at most that).
  PointwiseKernel(PointwisePattern pattern, int threads, std::int64_t workspace_threads)
      : p_(std::move(pattern)), layout_(p_), threads_(threads), workspace_threads_(workspace_threads) {}
  std::int64_t workspace_size() const override { return layout_.bytes(workspace_threads_); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    // The graph's own tensors as stored: floats, or 16-bit patterns.
    std::vector<void*> stored(p_.tensors.size(), nullptr);
    for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
      if (p_.tensors[i].is_virtual) continue;
      Result<void*> buffer = find_buffer(args.variant_pack, p_.tensors[i].uid, "a pointwise operand");
      if (!buffer.ok()) return buffer.error();
      stored[i] = *buffer;
    }
    const bool narrow = p_.type != DataType::FLOAT;
    auto* workspace = static_cast<float*>(args.workspace);
    float* widened = workspace ? workspace + workspace_threads_ * layout_.slots * kPointwiseBlock : nullptr;
    for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
      if (layout_.widened[i] < 0) continue;
      (void)cpu::widen_to_float_array(p_.type, static_cast<const std::uint16_t*>(stored[i]),
                                      widened + layout_.widened[i], p_.tensors[i].period);
    }
    const std::int64_t blocks = (p_.elements + kPointwiseBlock - 1) / kPointwiseBlock;
    const std::int64_t per_thread = layout_.slots * kPointwiseBlock;
    cpu::parallel_for(threads_, blocks, [&](std::int64_t block) {
      const std::int64_t begin = block * kPointwiseBlock;
      const std::int64_t n = std::min(kPointwiseBlock, p_.elements - begin);
      float* scratch = workspace ? workspace + omp_get_thread_num() * per_thread : nullptr;
      auto storage = [&](int t) -> float* {
        const auto i = static_cast<std::size_t>(t);
        if (layout_.slot[i] >= 0) return scratch + layout_.slot[i] * kPointwiseBlock;
        return static_cast<float*>(stored[i]) + begin;
      };
      auto operand = [&](int t) -> Operand {
        if (t < 0) return {};
        const auto i = static_cast<std::size_t>(t);
        const PointwiseTensor& tensor = p_.tensors[i];
        if (tensor.period == p_.elements) return contiguous(storage(t));
        const float* data = layout_.widened[i] >= 0 ? widened + layout_.widened[i] : static_cast<const float*>(stored[i]);
        return {data, tensor.period, begin % tensor.period};
      };
      if (narrow) {
        for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
          const PointwiseTensor& t = p_.tensors[i];
          if (t.is_virtual || t.written || layout_.slot[i] < 0) continue;
          (void)cpu::widen_to_float_array(p_.type, static_cast<const std::uint16_t*>(stored[i]) + begin,
                                          storage(static_cast<int>(i)), n);
        }
      }
      for (const PointwiseStep& step : p_.steps) apply(step.mode, operand(step.in0), operand(step.in1), storage(step.out), n);
      if (narrow) {
        for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
          const PointwiseTensor& t = p_.tensors[i];
          if (t.is_virtual || !t.written) continue;
          (void)cpu::narrow_float_array(p_.type, storage(static_cast<int>(i)),
                                        static_cast<std::uint16_t*>(stored[i]) + begin, n);
        }
      }
    });
    return Error::ok();
  }

 private:
  PointwisePattern p_;
  PointwiseLayout layout_;
  int threads_;
  std::int64_t workspace_threads_;
};

std::int64_t knob_threads(const KnobValues& knobs) { return std::max<std::int64_t>(1, knobs.get_int("threads", 1)); }

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_pointwise_engines() {
  return {std::make_shared<PatternEngine<PointwisePattern>>(
      EngineDescriptor{kPointwiseTunekitEngine, "CPU_POINTWISE_TUNEKIT", {threads_knob()}, 13,
                       "the operations applied block by block (2048 elements) on tunekit_cpu's elementwise kernels, "
                       "so a chain passes over memory once; intermediate results in per-thread scratch blocks"},
      [](const graph::OperationGraph& graph) {
        return match_pointwise_of(graph, {DataType::FLOAT, DataType::BFLOAT16});
      },
      [](const PointwisePattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        return PointwiseLayout(p).bytes(knob_threads(knobs));
      },
      [](const PointwisePattern& p, const KnobValues& knobs, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(new PointwiseKernel(p, threads, knob_threads(knobs)));
      })};
}

}  // namespace tunekit::engines::detail
