// The OpenBLAS CPU engine:
//   CPU_MATMUL_OPENBLAS (200): cblas_sgemm of the OpenBLAS tunekit links,
//     with its thread count set for each run (knob threads: 1 .. hardware
//     threads, capped by the device's effective threads), then tunekit's
//     epilogue (matmul_epilogue.hpp) with as many threads.
// OpenBLAS fixes the kernels it runs (its core type) when it loads, from its
// detection or OPENBLAS_CORETYPE: the engine's description and the
// provider's catalogue version name the version and the core type, so an
// override tuned against one misses on another.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kMatmulOpenblasEngine = 200;

// "0.3.21" (from openblas_get_config()).
std::string openblas_version();
// The core type OpenBLAS runs: "Haswell", "SkylakeX", "Zen", ...
std::string openblas_core_name();
// The file the engine's cblas_sgemm comes from: the engine looks it up in
// the library that defines openblas_get_config, so that BLIS's cblas_sgemm,
// which a plain call may bind to when BLIS is linked first, is never the one
// it runs.
std::string openblas_sgemm_library();

class OpenblasEngineProvider final : public graph::EngineProvider {
 public:
  OpenblasEngineProvider();
  std::string name() const override { return "openblas"; }
  // "openblas-0.3.21-Haswell-engines-1".
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_openblas_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
