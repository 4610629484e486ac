// The BLIS CPU engine:
//   CPU_MATMUL_BLIS (300): bli_sgemm_ex of the BLIS tunekit links (its own
//     bli_ API, so that OpenBLAS's BLAS symbols in the same process never
//     shadow it), on the configuration BLIS detected, with a thread count
//     per run (knob threads: 1 .. hardware threads, capped by the device's
//     effective threads), then tunekit's epilogue.
// BLIS picks its configuration ("skx", "zen3", "haswell", "generic") when it
// initialises; a distribution's BLIS may not know a newer processor and run
// "generic". The description and the catalogue version name the version and
// the configuration. Debian's BLIS 0.9 exports no call that selects another
// configuration (bli_gks_lookup_id and the bli_cntx_init_<arch> functions
// are internal), so the configuration is not a knob.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kMatmulBlisEngine = 300;

std::string blis_version();        // "0.9.0"
std::string blis_configuration();  // the configuration BLIS runs, "zen3", "generic", ...

class BlisEngineProvider final : public graph::EngineProvider {
 public:
  BlisEngineProvider();
  std::string name() const override { return "blis"; }
  // "blis-0.9.0-zen3-engines-1".
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_blis_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
