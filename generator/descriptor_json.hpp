// JSON form of the processor and execution descriptors, shared by every
// subcommand that prints or records them. Unknown fields are JSON null.
#pragma once

#include <nlohmann/json.hpp>

#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::cli {

nlohmann::json to_json(const platform::CpuDescriptor& cpu);
nlohmann::json to_json(const platform::CpuExecutionDescriptor& execution);

}  // namespace tunekit::cli
