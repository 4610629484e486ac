// Tuning one shape of one graph file, in this process or with each candidate
// isolated in a child, then the checks and the override write that follow
// (--require-stable, --keep-unless-faster); `tunekit tune` and `tunekit
// check` both measure through it. Also the engines and handle they tune with.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine_registrations.hpp"
#include "tune_problem.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::cli {

// The device of --device: "cpu", "hip" or "hip:N". INVALID_VALUE for another
// name or a HIP device that does not exist; NOT_SUPPORTED, with the probe's
// reason, when there is no HIP device.
Result<std::unique_ptr<platform::Device>> open_device(const std::string& name);

// The driver's engines plus the plugins of TUNEKIT_ENGINE_PLUGIN_PATH and
// --plugin (a refused plugin is reported on standard error, prefixed with
// options.program, and the others load), and a handle on the device of
// options.device.
struct TuneSession {
  std::unique_ptr<platform::Device> device;
  std::unique_ptr<graph::Handle> handle;
};
Result<std::unique_ptr<TuneSession>> open_tune_session(const TuneOptions& options, const EngineRegistrations& engines);

// Tunes the shape `shape_set` of `file` (read from `graph_path`, as given)
// into p: results, sweeps, and on failure error and exit_code. Writes the
// winner to `storage` unless its file path is empty.
void tune_shape(Problem& p, const graph::GraphFile& file, const std::string& graph_path,
                std::optional<std::size_t> shape_set, graph::Handle& handle, const graph::AutotuneConfig& config,
                const graph::AutotuneStorageConfig& storage, const TuneOptions& options);

}  // namespace tunekit::cli
