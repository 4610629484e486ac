// The engine registration functions a driver was given, run on a registry.
#pragma once

#include <vector>

#include "tunekit/driver/driver.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::cli {

using EngineRegistrations = std::vector<driver::EngineRegistration>;

// Runs every function in order; the first error (or exception, as
// INTERNAL naming it) stops the rest.
Error register_engines(const EngineRegistrations& registrations, graph::EngineRegistry& registry);

}  // namespace tunekit::cli
