// JSON form of the processor and execution descriptors and the power policy,
// shared by every subcommand that prints or records them. Unknown fields are
// JSON null.
#pragma once

#include <nlohmann/json.hpp>

#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/platform/hip_device.hpp"
#include "tunekit/platform/power_policy.hpp"

namespace tunekit::cli {

nlohmann::json to_json(const platform::CpuDescriptor& cpu);
nlohmann::json to_json(const platform::CpuExecutionDescriptor& execution);
nlohmann::json to_json(const platform::PowerPolicy& power);
// The GPUs the probe found (with their signatures), or why there are none.
nlohmann::json to_json(const platform::HipProbe& hip);

}  // namespace tunekit::cli
