// The GPU engine provider "tunekit-hip", loaded as an engine plugin
// (tunekit tune --plugin, TUNEKIT_ENGINE_PLUGIN_PATH). Its engines apply only
// on a HIP device: loaded next to the CPU engines, it adds nothing to a CPU
// tune.
#include <fmt/format.h>

#include <cstdio>

#include "hip_engine_support.hpp"
#include "hip_kernels.hpp"
#include "tunekit/graph/engine_plugin.hpp"

namespace {

using namespace tunekit;

class HipEngineProvider final : public graph::EngineProvider {
 public:
  std::string name() const override { return "tunekit-hip"; }
  // The kernels' set and the HIP version and architectures they were compiled
  // for: an override tuned against another build misses.
  std::string catalogue_version() const override {
    return fmt::format("tunekit-hip-1 hip-{} {}", hip_kernels::compiled_hip_version(), TUNEKIT_HIP_ARCHITECTURES_TEXT);
  }
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override {
    std::vector<std::shared_ptr<const graph::Engine>> all = hip_engines::matmul_engines();
    all.push_back(hip_engines::pointwise_engine());
    all.push_back(hip_engines::reduction_engine());
    all.push_back(hip_engines::conv_engine());
    return all;
  }
};

}  // namespace

TUNEKIT_ENGINE_PLUGIN_ABI_VERSION_FUNCTION { return tunekit::graph::kEnginePluginAbiVersion; }

TUNEKIT_ENGINE_PLUGIN_REGISTER_FUNCTION {
  const tunekit::Error added = registry->add_provider(HipEngineProvider());
  if (added.is_bad()) {
    std::snprintf(message, message_size, "%s", added.message().c_str());
    return 1;
  }
  return 0;
}
