// The BLIS CPU engine:
//   CPU_MATMUL_BLIS (300): bli_sgemm_ex of the BLIS tunekit links (its own
//     bli_ API, so that OpenBLAS's BLAS symbols in the same process never
//     shadow it), with a thread count per run (knob threads: 1 .. hardware
//     threads, capped by the device's effective threads) and the
//     configuration as a knob, then tunekit's epilogue.
// BLIS picks its configuration ("skx", "zen3", "haswell", "generic") when it
// initialises; a distribution's BLIS may not know a newer processor and run
// "generic" (on a Zen 5, Debian's BLIS 0.9 runs 5-6x slower so). The knob
// `configuration` runs the product on the context of another configuration
// built into that BLIS instead, among those whose instructions this
// processor has: "auto" (the detected one, the default) or another's name. That
// lookup (bli_gks_lookup_nat_cntx) is internal to the shared library, so
// tunekit links BLIS's static archive where one is installed (Debian's
// libblis-dev has both); with the shared library alone the knob offers
// "auto" only. The description and the catalogue version name the version
// and the detected configuration.
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
std::string blis_configuration();  // the configuration BLIS detected, "zen3", "generic", ...

// A configuration the knob may name: its BLIS name and its context (a
// cntx_t*, kept opaque so that this header does not include blis.h).
struct BlisConfiguration {
  std::string name;
  void* context = nullptr;
};
// The configurations built into the linked BLIS that this processor can
// run, other than the detected one, fastest instruction set first; empty
// when BLIS offers no lookup.
std::vector<BlisConfiguration> blis_configurations();

class BlisEngineProvider final : public graph::EngineProvider {
 public:
  BlisEngineProvider();
  std::string name() const override { return "blis"; }
  // "blis-0.9.0-zen3-engines-2".
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_blis_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
