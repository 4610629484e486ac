// Internal to tunekit_engines_onednn: what its matmul and convolution
// engines share (the CPU engine object, error conversion, the run's OpenMP
// team, the implementation knob and how it walks oneDNN's list).
#pragma once

#include <fmt/format.h>
#include <omp.h>

#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/knob.hpp"

namespace tunekit::engines::detail {

inline constexpr std::int64_t kOnednnMaximumImplementation = 7;

// One oneDNN CPU engine for the process.
const dnnl::engine& onednn_cpu_engine();

// NOT_SUPPORTED naming what failed and oneDNN's message and status.
Error onednn_error(const dnnl::error& e, const char* what);

// The implementation knob: 0 .. kOnednnMaximumImplementation.
graph::Knob onednn_implementation_knob();

// Moves pd to the `implementation`-th distinct implementation of oneDNN's
// list (NOT_SUPPORTED past its end). The list can name one implementation
// several times in a row (variants oneDNN tries internally), and how many
// depends on what the process ran before: counting distinct names keeps a
// knob value meaning the same implementation. Call on a descriptor held in
// place: a copy of an advanced descriptor does not keep its position.
template <typename PrimitiveDesc>
Error advance_to_distinct(PrimitiveDesc& pd, std::int64_t implementation, const std::string& what) {
  std::string current = pd.impl_info_str();
  for (std::int64_t distinct = 0; distinct < implementation;) {
    if (!pd.next_impl()) {
      return {ErrorCode::NOT_SUPPORTED,
              fmt::format("oneDNN offers {} implementations of {}, not {}", distinct + 1, what, implementation + 1)};
    }
    if (pd.impl_info_str() != current) {
      current = pd.impl_info_str();
      ++distinct;
    }
  }
  return Error::ok();
}

// oneDNN's OpenMP runtime runs a primitive on omp_get_max_threads(): the
// run's team for the scope, the previous value restored after it (also when
// oneDNN throws).
class OnednnTeam {
 public:
  explicit OnednnTeam(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~OnednnTeam() { omp_set_num_threads(previous_); }
  OnednnTeam(const OnednnTeam&) = delete;
  OnednnTeam& operator=(const OnednnTeam&) = delete;

 private:
  int previous_;
};

// Runs body(engine, stream) on a stream of the CPU engine with the run's
// team and waits for it; NOT_SUPPORTED naming `what` when oneDNN throws.
template <typename Body>
Error run_onednn(const char* what, int threads, Body&& body) {
  try {
    const dnnl::engine& engine = onednn_cpu_engine();
    dnnl::stream stream(engine);
    OnednnTeam team(threads);
    body(engine, stream);
    stream.wait();
  } catch (const dnnl::error& e) {
    return onednn_error(e, what);
  }
  return Error::ok();
}

// oneDNN 2.6 computes some offsets in 32-bit integers and crashes (SIGFPE)
// creating a descriptor past them: every dimension, leading dimension and
// element count handed to it stays below 2^31. NOT_SUPPORTED names the value.
inline Error check_onednn_sizes(std::initializer_list<std::int64_t> values, const std::string& what) {
  constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;
  for (std::int64_t v : values) {
    if (v > kLimit) {
      return {ErrorCode::NOT_SUPPORTED, fmt::format("{}: a size of {} exceeds what oneDNN takes ({})", what, v, kLimit)};
    }
  }
  return Error::ok();
}

// A float descriptor of `dims` with the packed row-major strides (oneDNN
// wants at least one dim; a rank-1 tensor stays rank 1).
inline dnnl::memory::desc dense_desc(const std::vector<std::int64_t>& dims) {
  dnnl::memory::dims strides(dims.size());
  std::int64_t stride = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), dnnl::memory::data_type::f32, strides);
}

// An engine of one oneDNN primitive whose scratchpad is all its workspace:
// make_pd(pattern, threads) creates the primitive descriptor (a shared_ptr,
// with the team set) and Kernel(pattern, pd, threads) the primitive; `what`
// names the primitive in errors.
template <typename Kernel, typename Pattern, typename MakePd>
std::shared_ptr<const graph::Engine> scratchpad_engine(graph::EngineDescriptor descriptor,
                                                       typename PatternEngine<Pattern>::Match match, MakePd make_pd,
                                                       const char* what) {
  return std::make_shared<PatternEngine<Pattern>>(
      std::move(descriptor), std::move(match),
      [make_pd](const Pattern& p, const graph::KnobValues& knobs) -> Result<std::int64_t> {
        auto pd = make_pd(p, static_cast<int>(knobs.get_int("threads", 1)));
        if (!pd.ok()) return pd.error();
        return static_cast<std::int64_t>((*pd)->scratchpad_desc().get_size());
      },
      [make_pd, what](const Pattern& p, const graph::KnobValues&,
                      int threads) -> Result<std::unique_ptr<graph::ExecutionKernel>> {
        auto pd = make_pd(p, threads);
        if (!pd.ok()) return pd.error();
        try {
          OnednnTeam team(threads);
          return std::unique_ptr<graph::ExecutionKernel>(new Kernel(p, std::move(pd).value(), threads));
        } catch (const dnnl::error& e) {
          return onednn_error(e, what);
        }
      });
}

// CPU_CONV_ONEDNN (onednn_conv.cpp) and CPU_LAYERNORM_ONEDNN (onednn_layernorm.cpp).
std::shared_ptr<const graph::Engine> make_onednn_conv_engine();
std::shared_ptr<const graph::Engine> make_onednn_layernorm_engine();
// CPU_REDUCTION_ONEDNN (onednn_reduction.cpp).
std::shared_ptr<const graph::Engine> make_onednn_reduction_engine();
// CPU_RMSNORM_ONEDNN (onednn_rmsnorm.cpp) and CPU_SOFTMAX_ONEDNN (onednn_softmax.cpp).
std::shared_ptr<const graph::Engine> make_onednn_rmsnorm_engine();
std::shared_ptr<const graph::Engine> make_onednn_softmax_engine();
// CPU_POINTWISE_ONEDNN (onednn_pointwise.cpp).
std::shared_ptr<const graph::Engine> make_onednn_pointwise_engine();

}  // namespace tunekit::engines::detail
