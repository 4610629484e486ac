// tunekit.describe(): the processor, execution and power descriptors and the
// GPUs (or why there are none), in the JSON form of `tunekit describe --json`.
#include <pybind11/stl.h>

#include <optional>

#include "bindings.hpp"
#include "descriptor_json.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/platform/power_policy.hpp"

namespace tunekit::python {

void bind_platform(py::module_& m) {
  m.def(
      "describe",
      [](std::optional<std::uint32_t> threads) {
        const platform::CpuExecutionDescriptor execution = platform::detect_execution_descriptor(threads);
        nlohmann::json out{{"processor", cli::to_json(execution.processor)},
                           {"execution", cli::to_json(execution)},
                           {"power", cli::to_json(platform::detect_power_policy())},
                           {"hip", cli::to_json(platform::probe_hip_devices())}};
        return to_python(out);
      },
      py::arg("threads") = py::none(),
      "The processor, execution and power descriptors and the HIP probe as a dict (threads: the requested thread "
      "count)");
}

}  // namespace tunekit::python
