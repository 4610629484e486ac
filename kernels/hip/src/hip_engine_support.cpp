#include "hip_engine_support.hpp"

#include <fmt/format.h>

#include "hip_kernels.hpp"

namespace tunekit::hip_engines {

Error require_hip_device(const platform::Device& device) {
  if (device.kind() == platform::DeviceKind::HIP) return Error::ok();
  return {ErrorCode::NOT_SUPPORTED,
          fmt::format("runs on a HIP device, not on {} ({})", platform::to_string(device.kind()), device.name())};
}

Error launch_status(int status, std::string_view what) {
  if (status == 0) return Error::ok();
  return {ErrorCode::EXECUTION_FAILED,
          fmt::format("{}: {} ({})", what, hip_kernels::status_name(status), hip_kernels::status_text(status))};
}

void* native_stream(const graph::ExecutionArguments& arguments) { return arguments.stream.native_handle(); }

graph::Knob choice_knob(std::string id, std::int64_t default_value, std::vector<std::int64_t> allowed,
                        std::string description) {
  graph::Knob knob;
  knob.id = std::move(id);
  knob.type = graph::KnobType::INT;
  knob.default_value = default_value;
  for (std::int64_t value : allowed) knob.allowed_values.emplace_back(value);
  knob.description = std::move(description);
  return knob;
}

}  // namespace tunekit::hip_engines
