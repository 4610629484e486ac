// Every CPU engine provider of this build of tunekit, for `tunekit tune` and
// programs that autotune on the CPU: the reference engines (the correctness
// oracle), tunekit's own, and those of the libraries found when tunekit was
// configured (OpenBLAS, BLIS, oneDNN, libxsmm; a missing one is left out).
#pragma once

#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

// The providers' names, in registration order (the order of the FALLBACK
// heuristic): "tunekit-find" (CPU_CONV_FIND, conv_find_engine.hpp),
// "tunekit", then "openblas", "blis", "onednn" and "libxsmm" where built, and
// "tunekit-cpu-reference", then "tunekit-oracle" (oracle_engine.hpp: the
// result check's reference, never a candidate).
std::vector<std::string> cpu_engine_providers();

// Registers each of them; the first error stops (a provider already
// registered is one).
Error register_cpu_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
