// The kernels of tunekit_cpu configured for a tuning session: each resolves
// its keys once, keeps the typed configuration, and takes the session's
// effective threads as its team cap, so a program names its thread count
// once, when it creates the session.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::cpu {
namespace {

int session_threads(const tuning::TuningSession& session) {
  return static_cast<int>(std::min<std::uint32_t>(session.execution().effective_threads, INT_MAX));
}

// The session's configuration of one key, its error naming the key.
template <typename Config>
Result<Config> configure(const tuning::TuningSession& session, const tuning::TuningBinding<Config>& binding,
                         const tuning::KernelTuningKey& key) {
  Result<Config> config = session.try_configure(binding, key);
  if (!config.ok()) return Error(config.error().code(), fmt::format("{}: {}", key.to_string(), config.error().message()));
  return config;
}

}  // namespace

Result<GemmKernel> GemmKernel::for_session(const tuning::TuningSession& session, DataType type) {
  if (gemm_packed_supports(type)) {
    Result<GemmPackedTuning> packed = configure(session, gemm_packed_binding(), gemm_packed_key(type));
    if (!packed.ok()) return packed.error();
    return GemmKernel(*packed, {}, session_threads(session));
  }
  if (gemm_widening_supports(type)) {
    // The product of the widened operands is the FLOAT Gemm.
    Result<GemmPackedTuning> packed = configure(session, gemm_packed_binding(), gemm_packed_key(DataType::FLOAT));
    if (!packed.ok()) return packed.error();
    Result<GemmWideningTuning> widening = configure(session, gemm_widening_binding(), gemm_widening_key(type));
    if (!widening.ok()) return widening.error();
    return GemmKernel(*packed, *widening, session_threads(session));
  }
  return Error(ErrorCode::INVALID_VALUE, fmt::format("Gemm does not implement {}", core::to_string(type)));
}

Result<UnaryElementwiseKernel> UnaryElementwiseKernel::for_session(const tuning::TuningSession& session, UnaryOp op,
                                                                   DataType type) {
  if (!supports(op, type)) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("{} does not support {}", to_string(op), core::to_string(type)));
  }
  Result<UnaryElementwiseTuning> config = configure(session, unary_elementwise_binding(), unary_key(op, type));
  if (!config.ok()) return config.error();
  return UnaryElementwiseKernel(op, *config, session_threads(session));
}

Result<BinaryElementwiseKernel> BinaryElementwiseKernel::for_session(const tuning::TuningSession& session,
                                                                     BinaryOp op, DataType operand_type) {
  if (!supports(op, operand_type)) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("{} does not support {}", to_string(op), core::to_string(operand_type)));
  }
  Result<BinaryElementwiseTuning> config =
      configure(session, binary_elementwise_binding(), binary_key(op, operand_type));
  if (!config.ok()) return config.error();
  return BinaryElementwiseKernel(op, *config, session_threads(session));
}

}  // namespace tunekit::cpu
