#include "hip_engine_support.hpp"

#include <fmt/format.h>

#include "hip_kernels.hpp"

namespace tunekit::hip_engines {

Error launch_status(int status, std::string_view what) {
  if (status == 0) return Error::ok();
  return {ErrorCode::EXECUTION_FAILED,
          fmt::format("{}: {} ({})", what, hip_kernels::status_name(status), hip_kernels::status_text(status))};
}

void* native_stream(const graph::ExecutionArguments& arguments) { return arguments.stream.native_handle(); }

}  // namespace tunekit::hip_engines
