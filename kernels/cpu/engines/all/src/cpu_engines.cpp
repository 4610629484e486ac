// Registration of every CPU engine provider built into tunekit.
#include "tunekit/engines/cpu_engines.hpp"

#include "tunekit/cpu/engines.hpp"
#include "tunekit/engines/conv_find_engine.hpp"
#include "tunekit/engines/oracle_engine.hpp"
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
#if TUNEKIT_HAVE_LIBXSMM_ENGINES
#include "tunekit/engines/libxsmm_engines.hpp"
#endif

namespace tunekit::engines {
namespace {

// CPU_CONV_FIND over tunekit's convolutions and, where built, oneDNN's with
// each algorithm.
class FindEngineProvider final : public graph::EngineProvider {
 public:
  FindEngineProvider() {
    const TunekitEngineProvider tunekit;
    auto engine = [](const graph::EngineProvider& provider, std::int64_t id) {
      for (const auto& e : provider.engines()) {
        if (e->descriptor().id == id) return e;
      }
      return std::shared_ptr<const graph::Engine>();
    };
    auto candidate = [](std::shared_ptr<const graph::Engine> e, std::vector<graph::KnobSetting> settings,
                        std::string name) {
      return ConvFindEngine::Candidate{e, e->descriptor().resolve(settings), std::move(name), {}};
    };
    std::vector<ConvFindEngine::Candidate> candidates;
#if TUNEKIT_HAVE_ONEDNN_ENGINES
    const OnednnEngineProvider onednn;
    const auto onednn_conv = engine(onednn, kConvOnednnEngine);
    candidates.push_back(candidate(onednn_conv, {{"algorithm", std::string("auto")}}, "CPU_CONV_ONEDNN[algorithm=auto]"));
#endif
    candidates.push_back(candidate(engine(tunekit, kConvTunekitDirectEngine), {}, "CPU_CONV_TUNEKIT_DIRECT"));
    candidates.back().first_for = direct_conv_runs_whole_groups_in_lanes;
    candidates.push_back(candidate(engine(tunekit, kConvTunekit1x1Engine), {}, "CPU_CONV_TUNEKIT_1X1"));
    candidates.push_back(candidate(engine(tunekit, kConvTunekitIm2colEngine), {}, "CPU_CONV_TUNEKIT_IM2COL"));
#if TUNEKIT_HAVE_ONEDNN_ENGINES
    candidates.push_back(candidate(onednn_conv, {{"algorithm", std::string("direct")}}, "CPU_CONV_ONEDNN[algorithm=direct]"));
    candidates.push_back(
        candidate(onednn_conv, {{"algorithm", std::string("winograd")}}, "CPU_CONV_ONEDNN[algorithm=winograd]"));
    catalogue_ = "find-2-" + onednn.catalogue_version();
#else
    catalogue_ = "find-2";
#endif
    engines_.push_back(std::make_shared<ConvFindEngine>(std::move(candidates)));
  }
  std::string name() const override { return "tunekit-find"; }
  std::string catalogue_version() const override { return catalogue_; }
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::string catalogue_;
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

}  // namespace

std::vector<std::string> cpu_engine_providers() {
  std::vector<std::string> names = {"tunekit-find", "tunekit"};
#if TUNEKIT_HAVE_OPENBLAS_ENGINES
  names.emplace_back("openblas");
#endif
#if TUNEKIT_HAVE_BLIS_ENGINES
  names.emplace_back("blis");
#endif
#if TUNEKIT_HAVE_ONEDNN_ENGINES
  names.emplace_back("onednn");
#endif
#if TUNEKIT_HAVE_LIBXSMM_ENGINES
  names.emplace_back("libxsmm");
#endif
  names.emplace_back("tunekit-cpu-reference");
  names.emplace_back("tunekit-oracle");
  return names;
}

Error register_cpu_engines(graph::EngineRegistry& registry) {
  // First: the FALLBACK heuristic keeps registration order, and for a
  // convolution CPU_CONV_FIND's unprimed choice (oneDNN's auto) is the one
  // to start with; it applies to nothing else.
  TUNEKIT_RETURN_IF_ERROR(registry.add_provider(FindEngineProvider()));
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
#if TUNEKIT_HAVE_LIBXSMM_ENGINES
  TUNEKIT_RETURN_IF_ERROR(register_libxsmm_engines(registry));
#endif
  // Last: the FALLBACK heuristic keeps registration order, and the reference
  // engines are the oracle, not a first choice.
  TUNEKIT_RETURN_IF_ERROR(cpu::register_reference_engines(registry));
  // The double-precision oracle of the result check, never a candidate.
  return registry.add_provider(OracleEngineProvider());
}

}  // namespace tunekit::engines
