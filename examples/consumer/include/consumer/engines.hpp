// The graph engines of consumer_kernels: two float matmul engines for a
// graph of one packed row-major rank-2 matmul (C = A x B), one plain and one
// cache-blocked with a tile knob, so that autotuning has a real choice to
// make. tune_graph() in CMakeLists.txt builds a driver that calls
// register_engines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace consumer {

// Stable ids: override files store them.
inline constexpr std::int64_t kMatmulNaiveEngine = 7101;  // no knobs
inline constexpr std::int64_t kMatmulTiledEngine = 7102;  // knob tile (int, 8..128 step 8)

class MatmulEngineProvider final : public tunekit::graph::EngineProvider {
 public:
  MatmulEngineProvider();
  std::string name() const override { return "consumer-matmul"; }
  // Raise it when what an engine computes or how it is tuned changes, so
  // that override entries tuned against the old engines miss.
  std::string catalogue_version() const override { return "consumer-matmul-1"; }
  std::vector<std::shared_ptr<const tunekit::graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const tunekit::graph::Engine>> engines_;
};

// Adds the provider's engines to registry.
tunekit::Error register_engines(tunekit::graph::EngineRegistry& registry);

}  // namespace consumer
