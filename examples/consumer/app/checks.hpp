// The two things consumer_app shows and checks: what the Saxpy kernel
// resolved on this machine (and that it computes the right result), and
// which matmul engine the selection policy picks for a graph file (and that
// it computes the right result). Each returns 0 when every check passed.
#pragma once

#include <filesystem>

#include "tunekit/tuning/tuning_session.hpp"

namespace consumer_app {

int check_saxpy(const tunekit::tuning::TuningSession& session);
int check_matmul_graph(const std::filesystem::path& graph_file);

}  // namespace consumer_app
