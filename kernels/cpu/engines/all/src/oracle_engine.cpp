// cpu_double_oracle: every pattern the library engines run that the rank-2
// reference engines do not, computed in double precision with the loops of
// the definitions (no blocking, no reordering, one thread), so that its only
// error is the final rounding to float.
#include "tunekit/engines/oracle_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "tunekit/core/half_precision.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/layernorm_pattern.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/pointwise_pattern.hpp"
#include "tunekit/engines/reduction_pattern.hpp"
#include "tunekit/engines/rmsnorm_pattern.hpp"
#include "tunekit/engines/softmax_pattern.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;

using AnyPattern = std::variant<MatmulPattern, ConvPattern, LayerNormPattern, RmsNormPattern, SoftmaxPattern,
                                ReductionPattern, PointwisePattern>;

// The first pattern that matches, in the order of AnyPattern.
Result<AnyPattern> match_any(const OperationGraph& graph) {
  if (auto p = match_matmul_of(graph, {DataType::FLOAT, DataType::BFLOAT16}); p.ok()) return AnyPattern(*p);
  if (auto p = match_conv(graph); p.ok()) return AnyPattern(*p);
  if (auto p = match_layernorm(graph); p.ok()) return AnyPattern(*p);
  if (auto p = match_rmsnorm(graph); p.ok()) return AnyPattern(*p);
  if (auto p = match_softmax(graph); p.ok()) return AnyPattern(*p);
  if (auto p = match_reduction(graph); p.ok()) return AnyPattern(*p);
  // Float pointwise graphs are the reference engines'.
  if (auto p = match_pointwise_of(graph, {DataType::BFLOAT16}); p.ok()) return AnyPattern(*p);
  return Error(ErrorCode::NOT_SUPPORTED,
               "not one float or bfloat16 matmul (with its bias and activation), nor a bfloat16 pointwise graph, nor "
               "one float conv_fprop (with its bias and relu), layernorm, rmsnorm, softmax or reduction");
}

double activate(Activation activation, double x) {
  switch (activation) {
    case Activation::RELU: return graph::apply_pointwise(graph::PointwiseMode::RELU, x);
    case Activation::GELU: return graph::apply_pointwise(graph::PointwiseMode::GELU, x);
    case Activation::SIGMOID: return graph::apply_pointwise(graph::PointwiseMode::SIGMOID, x);
    case Activation::TANH: return graph::apply_pointwise(graph::PointwiseMode::TANH, x);
    case Activation::NONE: break;
  }
  return x;
}

// An element of a float or bfloat16 (bit pattern) tensor, and the rounding
// back (a bfloat16 through float: the double result rounded twice, which
// differs from one rounding only within a float's rounding of a midpoint).
double value_of(float x) { return x; }
double value_of(std::uint16_t bits) { return core::bfloat16_to_float(bits); }
void store(double x, float& out) { out = static_cast<float>(x); }
void store(double x, std::uint16_t& out) { out = core::float_to_bfloat16(static_cast<float>(x)); }

template <typename T>
Error run_matmul(const MatmulPattern& p, const graph::VariantPack& pack) {
  Result<MatmulBuffersOf<T>> all = find_buffers_of<T>(p, pack);
  if (!all.ok()) return all.error();
  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const MatmulBuffersOf<T> b = all->at_batch(p, batch);
    for (std::int64_t i = 0; i < p.m; ++i) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        double sum = 0.0;
        for (std::int64_t q = 0; q < p.k; ++q) {
          const double a = value_of(p.a.transposed ? b.a[q * p.a.ld + i] : b.a[i * p.a.ld + q]);
          const double v = value_of(p.b.transposed ? b.b[j * p.b.ld + q] : b.b[q * p.b.ld + j]);
          sum += a * v;
        }
        if (b.bias != nullptr) sum += value_of(b.bias[j]);
        store(activate(p.activation, sum), b.c[i * p.ldc + j]);
      }
    }
  }
  return Error::ok();
}

Error run(const MatmulPattern& p, const graph::VariantPack& pack) {
  return p.type == DataType::BFLOAT16 ? run_matmul<std::uint16_t>(p, pack) : run_matmul<float>(p, pack);
}

// Element by element, every step in double; the graph's outputs rounded
// when stored (to float, then bfloat16: within a float's rounding of one
// rounding), and an output read by a later step read unrounded.
template <typename T>
Error run_pointwise(const PointwisePattern& p, const graph::VariantPack& pack) {
  std::vector<T*> stored(p.tensors.size(), nullptr);
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    if (p.tensors[i].is_virtual) continue;
    Result<void*> buffer = find_buffer(pack, p.tensors[i].uid, "a pointwise operand");
    if (!buffer.ok()) return buffer.error();
    stored[i] = static_cast<T*>(*buffer);
  }
  std::vector<double> values(p.tensors.size(), 0.0);
  for (std::int64_t e = 0; e < p.elements; ++e) {
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
      if (!p.tensors[i].is_virtual && !p.tensors[i].written) values[i] = value_of(stored[i][e % p.tensors[i].period]);
    }
    for (const PointwiseStep& step : p.steps) {
      const double y = step.in1 >= 0 ? values[static_cast<std::size_t>(step.in1)] : 0.0;
      values[static_cast<std::size_t>(step.out)] =
          graph::apply_pointwise(step.mode, values[static_cast<std::size_t>(step.in0)], y);
    }
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
      if (!p.tensors[i].is_virtual && p.tensors[i].written) store(values[i], stored[i][e]);
    }
  }
  return Error::ok();
}

Error run(const PointwisePattern& p, const graph::VariantPack& pack) {
  return p.type == DataType::BFLOAT16 ? run_pointwise<std::uint16_t>(p, pack) : run_pointwise<float>(p, pack);
}

Error run(const ConvPattern& p, const graph::VariantPack& pack) {
  Result<ConvBuffers> b = find_buffers(p, pack);
  if (!b.ok()) return b.error();
  const std::int64_t channels_per_group = p.c / p.groups, filters_per_group = p.k / p.groups;
  auto x_at = [&](std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) -> double {
    return p.nhwc ? b->x[((n * p.h + h) * p.w + w) * p.c + c] : b->x[((n * p.c + c) * p.h + h) * p.w + w];
  };
  for (std::int64_t n = 0; n < p.n; ++n) {
    for (std::int64_t k = 0; k < p.k; ++k) {
      const std::int64_t first_channel = k / filters_per_group * channels_per_group;
      for (std::int64_t oh = 0; oh < p.p; ++oh) {
        for (std::int64_t ow = 0; ow < p.q; ++ow) {
          double sum = b->bias != nullptr ? b->bias[k] : 0.0;
          for (std::int64_t r = 0; r < p.r; ++r) {
            const std::int64_t ih = oh * p.stride_h - p.pad_h + r * p.dilation_h;
            if (ih < 0 || ih >= p.h) continue;
            for (std::int64_t s = 0; s < p.s; ++s) {
              const std::int64_t iw = ow * p.stride_w - p.pad_w + s * p.dilation_w;
              if (iw < 0 || iw >= p.w) continue;
              for (std::int64_t c = 0; c < channels_per_group; ++c) {
                sum += x_at(n, first_channel + c, ih, iw) *
                       static_cast<double>(b->w[((k * channels_per_group + c) * p.r + r) * p.s + s]);
              }
            }
          }
          const std::int64_t at = p.nhwc ? ((n * p.p + oh) * p.q + ow) * p.k + k : ((n * p.k + k) * p.p + oh) * p.q + ow;
          b->y[at] = static_cast<float>(p.relu ? std::max(sum, 0.0) : sum);
        }
      }
    }
  }
  return Error::ok();
}

Error run(const LayerNormPattern& p, const graph::VariantPack& pack) {
  Result<LayerNormBuffers> b = find_buffers(p, pack);
  if (!b.ok()) return b.error();
  const double width = static_cast<double>(p.width);
  for (std::int64_t row = 0; row < p.rows; ++row) {
    const float* x = b->x + row * p.width;
    double mean = 0.0;
    for (std::int64_t i = 0; i < p.width; ++i) mean += x[i];
    mean /= width;
    double variance = 0.0;
    for (std::int64_t i = 0; i < p.width; ++i) variance += (x[i] - mean) * (x[i] - mean);
    const double inv = 1.0 / std::sqrt(variance / width + p.epsilon);
    for (std::int64_t i = 0; i < p.width; ++i) {
      b->y[row * p.width + i] = static_cast<float>((x[i] - mean) * inv * b->scale[i] + b->bias[i]);
    }
    if (b->mean != nullptr) b->mean[row] = static_cast<float>(mean);
    if (b->inv_variance != nullptr) b->inv_variance[row] = static_cast<float>(inv);
  }
  return Error::ok();
}

Error run(const RmsNormPattern& p, const graph::VariantPack& pack) {
  Result<RmsNormBuffers> b = find_buffers(p, pack);
  if (!b.ok()) return b.error();
  for (std::int64_t row = 0; row < p.rows; ++row) {
    const float* x = b->x + row * p.width;
    double squares = 0.0;
    for (std::int64_t i = 0; i < p.width; ++i) squares += static_cast<double>(x[i]) * x[i];
    const double inv = 1.0 / std::sqrt(squares / static_cast<double>(p.width) + p.epsilon);
    for (std::int64_t i = 0; i < p.width; ++i) b->y[row * p.width + i] = static_cast<float>(x[i] * inv * b->scale[i]);
    if (b->inv_rms != nullptr) b->inv_rms[row] = static_cast<float>(inv);
  }
  return Error::ok();
}

// X and Y as [outer, width, inner]: each (outer, inner) line along the axis
// is normalized.
Error run(const SoftmaxPattern& p, const graph::VariantPack& pack) {
  Result<float*> x = float_buffer(pack, p.x_uid, "X");
  if (!x.ok()) return x.error();
  Result<float*> y = float_buffer(pack, p.y_uid, "Y");
  if (!y.ok()) return y.error();
  for (std::int64_t o = 0; o < p.outer; ++o) {
    for (std::int64_t i = 0; i < p.inner; ++i) {
      auto at = [&](std::int64_t j) { return (o * p.width + j) * p.inner + i; };
      double largest = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < p.width; ++j) largest = std::max(largest, static_cast<double>((*x)[at(j)]));
      double total = 0.0;
      for (std::int64_t j = 0; j < p.width; ++j) total += std::exp((*x)[at(j)] - largest);
      for (std::int64_t j = 0; j < p.width; ++j) {
        (*y)[at(j)] = static_cast<float>(std::exp((*x)[at(j)] - largest) / total);
      }
    }
  }
  return Error::ok();
}

Error run(const ReductionPattern& p, const graph::VariantPack& pack) {
  Result<float*> x = float_buffer(pack, p.x_uid, "X");
  if (!x.ok()) return x.error();
  Result<float*> y = float_buffer(pack, p.y_uid, "Y");
  if (!y.ok()) return y.error();
  using graph::ReductionMode;
  for (std::int64_t o = 0; o < p.outer; ++o) {
    for (std::int64_t i = 0; i < p.inner; ++i) {
      double acc = p.mode == ReductionMode::MAX   ? -std::numeric_limits<double>::infinity()
                   : p.mode == ReductionMode::MIN ? std::numeric_limits<double>::infinity()
                   : p.mode == ReductionMode::PROD ? 1.0
                                                   : 0.0;
      for (std::int64_t r = 0; r < p.reduced; ++r) {
        const double v = (*x)[(o * p.reduced + r) * p.inner + i];
        switch (p.mode) {
          case ReductionMode::MAX: acc = std::max(acc, v); break;
          case ReductionMode::MIN: acc = std::min(acc, v); break;
          case ReductionMode::PROD: acc *= v; break;
          case ReductionMode::NORM2: acc += v * v; break;
          case ReductionMode::SUM:
          case ReductionMode::MEAN: acc += v; break;
        }
      }
      if (p.mode == ReductionMode::MEAN) acc /= static_cast<double>(p.reduced);
      if (p.mode == ReductionMode::NORM2) acc = std::sqrt(acc);
      (*y)[o * p.inner + i] = static_cast<float>(acc);
    }
  }
  return Error::ok();
}

class OracleKernel final : public ExecutionKernel {
 public:
  explicit OracleKernel(AnyPattern pattern) : pattern_(std::move(pattern)) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    return std::visit([&](const auto& p) { return run(p, args.variant_pack); }, pattern_);
  }

 private:
  AnyPattern pattern_;
};

class OracleEngine final : public graph::Engine {
 public:
  OracleEngine() {
    descriptor_.id = kDoubleOracleEngine;
    descriptor_.name = "cpu_double_oracle";
    descriptor_.heuristic_priority = 1000;
    descriptor_.description =
        "the definitions' loops in double precision on one thread: the result check's reference for batched "
        "and bfloat16 matmuls, bfloat16 pointwise graphs, convolutions, normalizations, softmax and reductions";
    descriptor_.reference = true;
    descriptor_.oracle_only = true;
  }
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(require_device(platform::DeviceKind::CPU, device));
    return match_any(graph).error();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues&) const override {
    TUNEKIT_RETURN_IF_ERROR(match_any(graph).error());
    return std::int64_t{0};
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues&,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    return std::unique_ptr<ExecutionKernel>(new OracleKernel(match_any(graph).value()));
  }

 private:
  EngineDescriptor descriptor_;
};

}  // namespace

OracleEngineProvider::OracleEngineProvider() { engines_.push_back(std::make_shared<OracleEngine>()); }

}  // namespace tunekit::engines
