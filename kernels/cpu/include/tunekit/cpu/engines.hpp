// Reference graph engines of tunekit_cpu: a few small float engines on host
// memory (naive and blocked matmul, pointwise, and a sequential executor for
// matmul-and-pointwise graphs) so that `tunekit tune` has real candidates
// with a real knob. They are correct, not fast: the oracle the engines of
// kernels/cpu/engines are tested against. Their heuristic priorities (101 and
// up) put them after every engine of those providers.
#pragma once

#include <cstdint>
#include <memory>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::cpu {

inline constexpr std::int64_t kMatmulNaiveEngine = 9001;    // no knobs
inline constexpr std::int64_t kMatmulBlockedEngine = 9002;  // knob tile (int, 8..128 step 8)
inline constexpr std::int64_t kPointwiseEngine = 9003;      // no knobs; broadcasting of size-1 dims
inline constexpr std::int64_t kSequentialEngine = 9004;     // knob matmul_tile (0: naive); intermediates in the workspace

class ReferenceEngineProvider final : public graph::EngineProvider {
 public:
  ReferenceEngineProvider();
  std::string name() const override { return "tunekit-cpu-reference"; }
  std::string catalogue_version() const override { return "reference-1"; }
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

// Adds the reference engines to registry.
Error register_reference_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::cpu
