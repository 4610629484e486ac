// consumer_app: a program built on consumer_kernels the way a kernel
// library's users run it. At start-up it registers the kernels' schemas, the
// processor profiles compiled into it (calibrate_kernels), the profiles
// installed beside it (WHEN install) and the engine overrides compiled into
// it (tune_graph); then it shows and checks what Saxpy and the matmul graph
// resolved on this machine. Exit 0 when every check passed.
//
//   consumer_app [GRAPH.toml]   (default: the projection graph of graphs/)
#include <fmt/format.h>

#include <exception>

#include "checks.hpp"
#include "consumer/register.hpp"

#if __has_include("consumer/processor_profiles.hpp")
#include "consumer/processor_profiles.hpp"
#define CONSUMER_HAS_PROFILES_HEADER 1
#endif
#if __has_include("consumer/embedded_overrides.hpp")
#include "consumer/embedded_overrides.hpp"
#define CONSUMER_HAS_OVERRIDES_HEADER 1
#endif
#if CONSUMER_LOAD_INSTALLED_PROFILES && __has_include("tunekit/tuning/installed_profiles.hpp")
#include "tunekit/tuning/installed_profiles.hpp"
#define CONSUMER_HAS_INSTALLED_PROFILES 1
#endif

namespace {

namespace tuning = tunekit::tuning;

// Everything registered before the session is created, so the session's
// generation sees all of it.
int register_everything() {
  consumer::register_consumer_kernels_schemas();
#ifdef CONSUMER_HAS_PROFILES_HEADER
  if (tunekit::Error e = consumer::register_processor_profiles(); e.is_bad()) {
    return fmt::print(stderr, "processor profiles: {}\n", e.message()), 1;
  }
  fmt::print("processor profiles: registered the profiles compiled in (consumer/processor_profiles.hpp)\n");
#else
  fmt::print("processor profiles: no consumer/processor_profiles.hpp header in this build\n");
#endif
#ifdef CONSUMER_HAS_INSTALLED_PROFILES
  fmt::print("{}\n", tuning::LoadInstalledProfiles(CONSUMER_PROJECT_NAME).summary());  // "installed profiles: ..."
#else
  fmt::print("installed profiles: not loaded in this build\n");
#endif
#ifdef CONSUMER_HAS_OVERRIDES_HEADER
  if (tunekit::Error e = consumer_overrides::register_embedded_overrides(); e.is_bad()) {
    return fmt::print(stderr, "engine overrides: {}\n", e.message()), 1;
  }
  fmt::print("engine overrides: registered the entries compiled in (consumer/embedded_overrides.hpp)\n");
#else
  fmt::print("engine overrides: no consumer/embedded_overrides.hpp header in this build\n");
#endif
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 2) return fmt::print(stderr, "usage: consumer_app [GRAPH.toml]\n"), 2;
    if (int failed = register_everything()) return failed;
    const tuning::TuningSession session = tuning::TuningSession::Create();
    int failed = consumer_app::check_saxpy(session);
    failed |= consumer_app::check_matmul_graph(argc == 2 ? argv[1] : CONSUMER_DEFAULT_GRAPH);
    if (failed) fmt::print(stderr, "consumer_app: a check failed\n");
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "consumer_app: {}\n", e.what());
    return 1;
  }
}
