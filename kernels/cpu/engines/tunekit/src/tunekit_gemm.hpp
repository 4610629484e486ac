// Internal to tunekit_engines_tunekit: the session's Gemm that tunekit's
// matmul and convolution engines run, and the factories of the engines
// defined in their own files.
#pragma once

#include <memory>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/graph/engine.hpp"

namespace tunekit::engines::detail {

// The Gemm of `type` of a session created for `threads` (its resolved
// configuration: the profiles and calibration registered in the process,
// else the portable defaults), capped at `threads`.
Result<cpu::GemmKernel> session_gemm(int threads, DataType type = DataType::FLOAT);

// CPU_CONV_TUNEKIT_IM2COL, CPU_CONV_TUNEKIT_1X1 and CPU_CONV_TUNEKIT_DIRECT.
std::vector<std::shared_ptr<const graph::Engine>> make_conv_engines();
// CPU_CONV_TUNEKIT_DIRECT (direct_conv_engine.cpp).
std::shared_ptr<const graph::Engine> make_direct_conv_engine();
// CPU_LAYERNORM_TUNEKIT and CPU_LAYERNORM_TUNEKIT_ONEPASS.
std::vector<std::shared_ptr<const graph::Engine>> make_layernorm_engines();
// CPU_REDUCTION_TUNEKIT and CPU_REDUCTION_TUNEKIT_SPLIT.
std::vector<std::shared_ptr<const graph::Engine>> make_reduction_engines();
// CPU_RMSNORM_TUNEKIT.
std::vector<std::shared_ptr<const graph::Engine>> make_rmsnorm_engines();
// CPU_SOFTMAX_TUNEKIT.
std::vector<std::shared_ptr<const graph::Engine>> make_softmax_engines();
// CPU_POINTWISE_TUNEKIT.
std::vector<std::shared_ptr<const graph::Engine>> make_pointwise_engines();

}  // namespace tunekit::engines::detail
