// Graph autotuning from Python: tunekit.tune() runs what `tunekit tune` runs
// (the driver's tune_graphs, with every CPU engine provider of this build) and
// returns each shape's ranked candidates as `tune --json` gives them; and the
// selection policy's lookup in override files (`tunekit overrides lookup`);
// and the page of `tunekit report`.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "report_model.hpp"
#include "report_page.hpp"
#include "tune_run.hpp"
#include "tunekit/engines/cpu_engines.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/graph/tensor.hpp"
#include "tunekit/internal/knob_json.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/store/atomic_file.hpp"

namespace tunekit::python {

void bind_graph(py::module_& m) {
  m.def(
      "tune",
      [](std::vector<std::string> graphs, std::string output, std::vector<std::string> shape_sets, std::string mode,
         std::string strategy, int iterations, double tie_band_percent, double confidence_percent, bool replace,
         bool keep_unless_faster, bool check_results, double time_budget, std::vector<std::string> plugins, std::string device,
         std::optional<std::function<void(const py::dict&)>> progress) {
        cli::TuneOptions options;
        options.graphs = std::move(graphs);
        options.output = std::move(output);
        options.shape_sets = std::move(shape_sets);
        options.mode = std::move(mode);
        options.strategy = std::move(strategy);
        options.iterations = iterations;
        options.tie_band_percent = tie_band_percent;
        options.confidence_percent = confidence_percent;
        options.replace = replace;
        options.keep_unless_faster = keep_unless_faster;
        options.no_result_check = !check_results;
        options.time_budget_s = time_budget;
        options.plugins = std::move(plugins);
        options.device = std::move(device);
        options.json = true;
        options.program = "tunekit.tune";
        // Isolation restarts the running program, which here is the Python
        // interpreter: candidates are measured in this process.
        options.isolate = false;
        if (replace && keep_unless_faster) {
          throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, "replace and keep_unless_faster exclude each other"));
        }
        std::function<void(const cli::Problem&)> on_shape;
        if (progress) {
          on_shape = [callback = *progress](const cli::Problem& p) {
            py::gil_scoped_acquire locked;
            callback(to_python(cli::problem_json(p)));
          };
        }
        cli::TuneRun run;
        {
          py::gil_scoped_release unlocked;
          run = cli::tune_graphs(options, {engines::register_cpu_engines}, on_shape);
        }
        if (!run.error.empty()) {
          throw ErrorRaised(Error(run.exit_code == 2 ? ErrorCode::INVALID_VALUE : ErrorCode::EXECUTION_FAILED,
                                  run.error));
        }
        nlohmann::json shapes = nlohmann::json::array();
        for (const cli::Problem& p : run.problems) shapes.push_back(cli::problem_json(p));
        py::dict out;
        out["exit_code"] = run.exit_code;
        out["shapes"] = to_python(shapes);
        return out;
      },
      py::arg("graphs"), py::kw_only(), py::arg("output"), py::arg("shape_sets") = std::vector<std::string>{},
      py::arg("mode") = "standard", py::arg("strategy") = "run_until_stable", py::arg("iterations") = 0,
      py::arg("tie_band_percent") = 2.0, py::arg("confidence_percent") = 95.0, py::arg("replace") = false,
      py::arg("keep_unless_faster") = false, py::arg("check_results") = true, py::arg("time_budget") = 0.0,
      py::arg("plugins") = std::vector<std::string>{}, py::arg("device") = "cpu", py::arg("progress") = py::none());

  m.def(
      "report",
      [](std::vector<std::string> inputs, std::string output, std::vector<std::string> before, double tie_band_percent,
         std::string title) {
        cli::ReportOptions options{std::move(inputs), std::move(before), std::move(output), tie_band_percent,
                                   std::move(title)};
        Result<nlohmann::json> model = cli::build_report_model(options);
        raise_if_bad(model.ok() ? Error::ok() : model.error());
        store::AtomicWriteOptions write;
        write.create_parent_folders = true;
        raise_if_bad(store::write_file_atomically(options.output, cli::render_report_page(*model), write));
        return to_python(*model);
      },
      py::arg("inputs"), py::kw_only(), py::arg("output"), py::arg("before") = std::vector<std::string>{},
      py::arg("tie_band_percent") = 2.0, py::arg("title") = "tunekit report");

  m.def(
      "lookup_override",
      [](std::vector<std::string> files, std::string op, std::map<std::string, std::vector<std::int64_t>> tensors,
         std::map<std::string, std::vector<std::int64_t>> strides, std::map<std::string, std::int64_t> criteria,
         bool any_device) {
        graph::OverrideQuery query;
        query.op = std::move(op);
        query.criteria = std::move(criteria);
        for (auto& [id, dims] : tensors) {
          for (std::int64_t d : dims) {
            if (d <= 0) throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, "tensor '" + id + "': dims must be positive"));
          }
          auto given = strides.find(id);
          std::vector<std::int64_t> s =
              given != strides.end() ? given->second : graph::TensorAttributes::packed_strides(dims);
          if (s.size() != dims.size()) {
            throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, "tensor '" + id + "': one stride per dim"));
          }
          query.tensors.push_back({id, dims, std::move(s)});
        }
        graph::OverridePolicy policy;
        policy.set_paths(std::vector<std::filesystem::path>(files.begin(), files.end()));
        const std::shared_ptr<const graph::OverrideIndex> index = policy.refresh();
        nlohmann::json skipped = nlohmann::json::array();
        for (const auto& f : policy.skipped_files()) skipped.push_back({{"file", f.path.string()}, {"reason", f.reason}});
        graph::OverrideExplanation explained;
        if (index) {
          graph::OverrideLookupContext context;
          platform::CpuDevice device;
          if (!any_device) context.device_signature = device.signature();
          explained = index->explain(query, context);
        }
        nlohmann::json out{{"matched", explained.match.has_value()}, {"skipped", std::move(skipped)}};
        if (explained.match) {
          const graph::OverrideMatch& match = *explained.match;
          out["engine_name"] = match.engine_name;
          out["engine_id"] = match.engine_id >= 0 ? nlohmann::json(match.engine_id) : nlohmann::json();
          out["knobs"] = internal::knob_settings_to_json(match.entry->knobs);
          out["file"] = match.file;
          out["entry_index"] = match.entry->index;
          out["exact"] = match.exact;
        }
        nlohmann::json misses = nlohmann::json::array();
        for (const auto& miss : explained.misses) {
          misses.push_back({{"file", miss.file}, {"entry_index", miss.entry_index}, {"reason", miss.reason}});
        }
        out["misses"] = std::move(misses);
        return to_python(out);
      },
      py::arg("files"), py::kw_only(), py::arg("op"), py::arg("tensors"),
      py::arg("strides") = std::map<std::string, std::vector<std::int64_t>>{},
      py::arg("criteria") = std::map<std::string, std::int64_t>{}, py::arg("any_device") = false);
}

}  // namespace tunekit::python
