// Registration of every CPU engine provider built into tunekit.
#include "tunekit/engines/cpu_engines.hpp"

#include "tunekit/cpu/engines.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#if TUNEKIT_HAVE_OPENBLAS_ENGINES
#include "tunekit/engines/openblas_engines.hpp"
#endif
#if TUNEKIT_HAVE_BLIS_ENGINES
#include "tunekit/engines/blis_engines.hpp"
#endif
#if TUNEKIT_HAVE_ONEDNN_ENGINES
#include "tunekit/engines/onednn_engines.hpp"
#endif

namespace tunekit::engines {

std::vector<std::string> cpu_engine_providers() {
  std::vector<std::string> names = {"tunekit"};
#if TUNEKIT_HAVE_OPENBLAS_ENGINES
  names.emplace_back("openblas");
#endif
#if TUNEKIT_HAVE_BLIS_ENGINES
  names.emplace_back("blis");
#endif
#if TUNEKIT_HAVE_ONEDNN_ENGINES
  names.emplace_back("onednn");
#endif
  names.emplace_back("tunekit-cpu-reference");
  return names;
}

Error register_cpu_engines(graph::EngineRegistry& registry) {
  TUNEKIT_RETURN_IF_ERROR(register_tunekit_engines(registry));
#if TUNEKIT_HAVE_OPENBLAS_ENGINES
  TUNEKIT_RETURN_IF_ERROR(register_openblas_engines(registry));
#endif
#if TUNEKIT_HAVE_BLIS_ENGINES
  TUNEKIT_RETURN_IF_ERROR(register_blis_engines(registry));
#endif
#if TUNEKIT_HAVE_ONEDNN_ENGINES
  TUNEKIT_RETURN_IF_ERROR(register_onednn_engines(registry));
#endif
  // Last: the FALLBACK heuristic keeps registration order, and the reference
  // engines are the oracle, not a first choice.
  return cpu::register_reference_engines(registry);
}

}  // namespace tunekit::engines
