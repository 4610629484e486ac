// tunekit's convolution engines on the packed Gemm: im2col (each image's
// patches unrolled into the workspace, then one Gemm against the filter)
// and, for 1x1 filters with stride 1 and no padding, the Gemm alone.
#include <fmt/format.h>

#include <algorithm>

#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines::detail {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using cpu::Transpose;

enum class Strategy { IM2COL, POINTWISE };

// Floats of one image's unrolled patches: C*R*S x P*Q.
std::int64_t columns_floats(const ConvPattern& p) { return p.c * p.r * p.s * p.p * p.q; }

// One image's patches: NCHW as [C*R*S, P*Q] (so Y = W x col), NHWC as
// [P*Q, C*R*S] (so Y = col x W^T); padding reads as 0.
void im2col(const ConvPattern& p, const float* x, float* col, int threads) {
  const std::int64_t crs = p.c * p.r * p.s;
  const std::int64_t pq = p.p * p.q;
  if (!p.nhwc) {
    cpu::parallel_for(threads, crs, [&](std::int64_t row) {
      const std::int64_t c = row / (p.r * p.s), r = row / p.s % p.r, s = row % p.s;
      const float* plane = x + c * p.h * p.w;
      float* out = col + row * pq;
      for (std::int64_t oh = 0; oh < p.p; ++oh) {
        const std::int64_t ih = oh * p.stride_h - p.pad_h + r * p.dilation_h;
        float* line = out + oh * p.q;
        if (ih < 0 || ih >= p.h) {
          std::fill_n(line, p.q, 0.0f);
          continue;
        }
        for (std::int64_t ow = 0; ow < p.q; ++ow) {
          const std::int64_t iw = ow * p.stride_w - p.pad_w + s * p.dilation_w;
          line[ow] = iw >= 0 && iw < p.w ? plane[ih * p.w + iw] : 0.0f;
        }
      }
    });
  } else {
    cpu::parallel_for(threads, pq, [&](std::int64_t pixel) {
      const std::int64_t oh = pixel / p.q, ow = pixel % p.q;
      float* out = col + pixel * crs;
      for (std::int64_t c = 0; c < p.c; ++c) {
        for (std::int64_t r = 0; r < p.r; ++r) {
          const std::int64_t ih = oh * p.stride_h - p.pad_h + r * p.dilation_h;
          for (std::int64_t s = 0; s < p.s; ++s) {
            const std::int64_t iw = ow * p.stride_w - p.pad_w + s * p.dilation_w;
            const bool inside = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
            out[(c * p.r + r) * p.s + s] = inside ? x[(ih * p.w + iw) * p.c + c] : 0.0f;
          }
        }
      }
    });
  }
}

class ConvKernel final : public ExecutionKernel {
 public:
  ConvKernel(ConvPattern pattern, Strategy strategy, cpu::GemmKernel gemm, int threads)
      : p_(pattern), strategy_(strategy), gemm_(gemm), threads_(threads) {}
  std::int64_t workspace_size() const override {
    return strategy_ == Strategy::IM2COL ? columns_floats(p_) * static_cast<std::int64_t>(sizeof(float)) : 0;
  }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<ConvBuffers> b = find_buffers(p_, args.variant_pack);
    if (!b.ok()) return b.error();
    // Per group g: its cg input channels, kg filters (each cg*R*S long,
    // consecutive in W) and kg output channels; one Gemm each.
    const std::int64_t cg = p_.c / p_.groups, kg = p_.k / p_.groups;
    const std::int64_t crs = p_.c * p_.r * p_.s, crs_g = cg * p_.r * p_.s, pq = p_.p * p_.q, hw = p_.h * p_.w;
    // NHWC: Y's columns are the output channels, so the bias and ReLU go
    // into the Gemm's tiles (the group's kg channels from bias + g * kg);
    // a second pass over a ResNet layer's 12.8 MB of Y cost as much as the
    // product. NCHW: the bias runs along Y's rows, a pass after the Gemms.
    const auto epilogue_of = [&](std::int64_t g) {
      if (!p_.nhwc) return cpu::GemmKernel::Epilogue{};
      return cpu::GemmKernel::Epilogue{b->bias != nullptr ? b->bias + g * kg : nullptr, p_.relu};
    };
    const auto run = [&](Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         std::int64_t lda, const float* bm, std::int64_t ldb, float* c, std::int64_t ldc,
                         std::int64_t g) {
      return gemm_.run(Transpose::NO, tb, m, n, k, 1.0f, a, lda, bm, ldb, 0.0f, c, ldc, epilogue_of(g),
                       cpu::GemmPath::AUTO, threads_);
    };
    if (strategy_ == Strategy::POINTWISE && p_.nhwc) {
      // The whole batch is one [N*H*W, cg] x [cg, kg] product per group.
      for (std::int64_t g = 0; g < p_.groups; ++g) {
        TUNEKIT_RETURN_IF_ERROR(run(Transpose::YES, p_.n * hw, kg, cg, b->x + g * cg, p_.c, b->w + g * kg * cg, cg,
                                    b->y + g * kg, p_.k, g));
      }
    } else {
      auto* col = static_cast<float*>(args.workspace);
      for (std::int64_t image = 0; image < p_.n; ++image) {
        const float* x = b->x + image * p_.c * hw;
        float* y = b->y + image * p_.k * pq;
        if (strategy_ == Strategy::IM2COL) im2col(p_, x, col, threads_);
        for (std::int64_t g = 0; g < p_.groups; ++g) {
          const float* w = b->w + g * kg * crs_g;
          if (strategy_ == Strategy::POINTWISE) {
            TUNEKIT_RETURN_IF_ERROR(run(Transpose::NO, kg, hw, cg, w, cg, x + g * cg * hw, hw, y + g * kg * hw, hw, g));
          } else if (p_.nhwc) {
            // col is [P*Q, C*R*S]: the group's columns are consecutive.
            TUNEKIT_RETURN_IF_ERROR(
                run(Transpose::YES, pq, kg, crs_g, col + g * crs_g, crs, w, crs_g, y + g * kg, p_.k, g));
          } else {
            // col is [C*R*S, P*Q]: the group's rows are consecutive.
            TUNEKIT_RETURN_IF_ERROR(
                run(Transpose::NO, kg, pq, crs_g, w, crs_g, col + g * crs_g * pq, pq, y + g * kg * pq, pq, g));
          }
        }
      }
    }
    if (!p_.nhwc) apply_conv_epilogue(p_, b->bias, b->y, threads_);
    return Error::ok();
  }

 private:
  ConvPattern p_;
  Strategy strategy_;
  cpu::GemmKernel gemm_;
  int threads_;
};

std::shared_ptr<const graph::Engine> conv_engine(EngineDescriptor descriptor, Strategy strategy) {
  auto match = [strategy](const OperationGraph& graph) -> Result<ConvPattern> {
    Result<ConvPattern> p = match_conv(graph);
    if (p.ok() && strategy == Strategy::POINTWISE && !p->is_pointwise()) {
      return Error(ErrorCode::NOT_SUPPORTED, "only 1x1 filters with stride 1 and no padding");
    }
    return p;
  };
  return std::make_shared<PatternEngine<ConvPattern>>(
      std::move(descriptor), match,
      [strategy](const ConvPattern& p, const KnobValues&) -> Result<std::int64_t> {
        return strategy == Strategy::IM2COL ? columns_floats(p) * static_cast<std::int64_t>(sizeof(float)) : 0;
      },
      [strategy](const ConvPattern& p, const KnobValues&, int threads) -> Result<std::unique_ptr<ExecutionKernel>> {
        Result<cpu::GemmKernel> gemm = session_gemm(threads);
        if (!gemm.ok()) return gemm.error();
        return std::unique_ptr<ExecutionKernel>(new ConvKernel(p, strategy, *gemm, threads));
      });
}

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> make_conv_engines() {
  return {conv_engine(
              EngineDescriptor{kConvTunekitIm2colEngine, "CPU_CONV_TUNEKIT_IM2COL", {threads_knob()}, 12,
                               "each image's patches unrolled into the workspace, then tunekit's packed Gemm against "
                               "the filter; the bias and relu in its tiles (NHWC) or a second pass (NCHW)"},
              Strategy::IM2COL),
          conv_engine(
              EngineDescriptor{kConvTunekit1x1Engine, "CPU_CONV_TUNEKIT_1X1", {threads_knob()}, 11,
                               "a 1x1 convolution with stride 1 as tunekit's packed Gemm (NHWC: one product for the "
                               "whole batch, the bias and relu in its tiles)"},
              Strategy::POINTWISE),
          make_direct_conv_engine()};
}

}  // namespace tunekit::engines::detail
