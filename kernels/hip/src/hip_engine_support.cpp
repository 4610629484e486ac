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

}  // namespace tunekit::hip_engines
