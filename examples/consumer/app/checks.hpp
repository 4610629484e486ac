// The two things consumer_app shows and checks: what the Saxpy kernel
// resolved on this machine (and that it computes the right result), and
// which matmul engine the selection policy picks for a graph file (and that
// it computes the right result). Each returns 0 when every check passed.
#pragma once

#include <filesystem>

#include <string_view>

#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace consumer_app {

int check_saxpy(const tunekit::tuning::TuningSession& session);
// The graph on the engines `register_engines` adds (the consumer's own, or
// tunekit's CPU engine providers from tunekit::cpu_engines).
using RegisterEngines = tunekit::Error (*)(tunekit::graph::EngineRegistry& registry);
int check_matmul_graph(const std::filesystem::path& graph_file, std::string_view engines_name,
                       RegisterEngines register_engines);

}  // namespace consumer_app
