// What every engine provider's engines share: an engine over one graph
// pattern (MatmulPattern, ConvPattern) that applies on its kind of device
// (the CPU, or a GPU for the engines of kernels/hip) when the pattern
// matches, estimates its workspace from the pattern and knobs, and compiles
// with the knob's thread count capped by the device; a function does each
// engine's own part. Plus the checks their kernels all make.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation.hpp"
#include "tunekit/graph/tensor.hpp"

namespace tunekit::engines {

// The threads an engine may use on `device`: the CPU device's effective
// threads (affinity, quota), capped by `requested` when it is positive.
int engine_threads(const platform::Device& device, std::int64_t requested) noexcept;

// INVALID_VALUE when a kernel needing `needed` bytes got less.
Error check_workspace(const graph::ExecutionArguments& args, std::int64_t needed);

// The buffer of `uid` in a variant pack; INVALID_VALUE naming `what` when missing.
Result<void*> find_buffer(const graph::VariantPack& pack, std::int64_t uid, const char* what);

// Whether two ports name one tensor (the same object, or the same uid).
bool same_tensor(const graph::Tensor& x, const graph::Tensor& y) noexcept;

// A tensor whose strides are the packed row-major ones (a dim of 1 may have
// any stride), and one that is also float.
bool is_dense(const graph::Tensor& t) noexcept;
bool is_dense_float(const graph::Tensor& t) noexcept;

// NOT_SUPPORTED with `why`: a pattern's reason for not applying.
Error not_supported(std::string why);

// OK when `device` is of kind `wanted`; otherwise NOT_SUPPORTED, "runs on
// the CPU only" or "runs on a HIP device, not on cpu (<the device's name>)".
Error require_device(platform::DeviceKind wanted, const platform::Device& device);

// NOT_SUPPORTED naming the first port that is not a densely packed float
// tensor of the graph's own (not virtual): every port of `inputs` must be
// present, a port of `outputs` may be absent.
Error check_dense_float_ports(const graph::Operation& op, std::initializer_list<const char*> inputs,
                              std::initializer_list<const char*> outputs);

// The float buffer of `uid` in a variant pack, nullptr for a uid of -1 (a
// port the graph does not request); INVALID_VALUE as find_buffer.
Result<float*> float_buffer(const graph::VariantPack& pack, std::int64_t uid, const char* what);

template <typename Pattern>
class PatternEngine final : public graph::Engine {
 public:
  using Match = std::function<Result<Pattern>(const graph::OperationGraph&)>;
  // Workspace bytes of the pattern with these knobs (the thread knob as
  // given: the estimate has no device to cap it, so compile uses the same).
  using Workspace = std::function<Result<std::int64_t>(const Pattern&, const graph::KnobValues&)>;
  // The kernel of the pattern on `threads` threads (already capped).
  using Make = std::function<Result<std::unique_ptr<graph::ExecutionKernel>>(const Pattern&, const graph::KnobValues&,
                                                                             int threads)>;

  PatternEngine(graph::EngineDescriptor descriptor, Match match, Workspace workspace, Make make,
                platform::DeviceKind device_kind = platform::DeviceKind::CPU)
      : descriptor_(std::move(descriptor)), match_(std::move(match)), workspace_(std::move(workspace)),
        make_(std::move(make)), device_kind_(device_kind) {}

  const graph::EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const graph::OperationGraph& graph, const platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(require_device(device_kind_, device));
    return match_(graph).error();
  }
  Result<std::int64_t> estimate_workspace(const graph::OperationGraph& graph,
                                          const graph::KnobValues& knobs) const override {
    Result<Pattern> pattern = match_(graph);
    if (!pattern.ok()) return pattern.error();
    return workspace_(*pattern, knobs);
  }
  Result<std::unique_ptr<graph::ExecutionKernel>> compile(const graph::OperationGraph& graph,
                                                          const graph::KnobValues& knobs,
                                                          platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    return make_(match_(graph).value(), knobs, engine_threads(device, knobs.get_int("threads", 1)));
  }

 private:
  graph::EngineDescriptor descriptor_;
  Match match_;
  Workspace workspace_;
  Make make_;
  platform::DeviceKind device_kind_;
};

// An engine of `Pattern` that needs no workspace and whose kernel is
// Kernel(pattern, extra..., threads).
template <typename Kernel, typename Pattern, typename... Extra>
std::shared_ptr<const graph::Engine> workspace_free_engine(graph::EngineDescriptor descriptor,
                                                           typename PatternEngine<Pattern>::Match match, Extra... extra) {
  return std::make_shared<PatternEngine<Pattern>>(
      std::move(descriptor), std::move(match),
      [](const Pattern&, const graph::KnobValues&) -> Result<std::int64_t> { return std::int64_t{0}; },
      [extra...](const Pattern& p, const graph::KnobValues&, int threads) -> Result<std::unique_ptr<graph::ExecutionKernel>> {
        return std::unique_ptr<graph::ExecutionKernel>(new Kernel(p, extra..., threads));
      });
}

}  // namespace tunekit::engines
