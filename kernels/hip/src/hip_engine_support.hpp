// What the GPU engines share: their ids, the CPU engines' pattern engine on a
// HIP device, the knob builder and the translation of a launch status into
// an Error.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/graph/engine.hpp"

namespace tunekit::hip_engines {

// Stable ids, stored in override files.
inline constexpr std::int64_t kMatmulNaiveEngine = 1000;
inline constexpr std::int64_t kMatmulTiledEngine = 1001;
inline constexpr std::int64_t kMatmulFindEngine = 1002;
inline constexpr std::int64_t kPointwiseEngine = 1010;
inline constexpr std::int64_t kReductionEngine = 1020;
inline constexpr std::int64_t kConvImplicitGemmEngine = 1030;

// NOT_SUPPORTED unless device is a HIP device, naming the device it is.
inline Error require_hip_device(const platform::Device& device) {
  return engines::require_device(platform::DeviceKind::HIP, device);
}

// An engine of `Pattern` on a HIP device: the CPU engines' PatternEngine
// (its thread count is 1 there and unused).
template <typename Pattern>
std::shared_ptr<const graph::Engine> hip_pattern_engine(graph::EngineDescriptor descriptor,
                                                        typename engines::PatternEngine<Pattern>::Match match,
                                                        typename engines::PatternEngine<Pattern>::Workspace workspace,
                                                        typename engines::PatternEngine<Pattern>::Make make) {
  return std::make_shared<engines::PatternEngine<Pattern>>(
      std::move(descriptor), std::move(match), std::move(workspace), std::move(make), platform::DeviceKind::HIP);
}

// No workspace, whatever the pattern and knobs.
template <typename Pattern>
Result<std::int64_t> no_workspace(const Pattern&, const graph::KnobValues&) {
  return std::int64_t{0};
}

// EXECUTION_FAILED "<what>: hipErrorX (text)" for a failed launch; OK for 0.
Error launch_status(int status, std::string_view what);

// The HIP stream the arguments name (the handle's stream).
void* native_stream(const graph::ExecutionArguments& arguments);

// An INT knob whose value must be one of `allowed` (the CPU engines' helper).
using engines::int_choice_knob;

// Every engine of the GPU provider.
std::vector<std::shared_ptr<const graph::Engine>> matmul_engines();
std::shared_ptr<const graph::Engine> pointwise_engine();
std::shared_ptr<const graph::Engine> reduction_engine();
std::shared_ptr<const graph::Engine> conv_engine();

}  // namespace tunekit::hip_engines
