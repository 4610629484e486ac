// The kernel-tuning operations of the specification (load the cache,
// calibrate, update the cache) and sessions. Reports come back as JSON
// documents (dicts) with the C++ reports' field names, which the tunekit
// package wraps in objects; a calibrated profile stays a C++ object, so that
// update_kernel_tuning_cache stores exactly what calibration measured.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "descriptor_json.hpp"
#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::python {
namespace {

using nlohmann::json;
using tuning::KernelTuningKey;

json key_json(const KernelTuningKey& key) {
  return {{"name", key.to_string()},
          {"library", key.library},
          {"kernel", key.kernel},
          {"implementation", key.implementation},
          {"element_type", std::string(core::to_string(key.element_type))},
          {"tuning_abi", key.tuning_abi}};
}

json values_json(const tuning::KernelTuningParameters& parameters) {
  json out = json::object();
  for (const auto& [name, value] : parameters.values) {
    if (auto i = value.as_int()) {
      out[name] = *i;
    } else if (auto d = value.as_double()) {
      out[name] = *d;
    } else if (auto b = value.as_bool()) {
      out[name] = *b;
    } else {
      out[name] = *value.as_string();
    }
  }
  return out;
}

json entry_refs_json(const std::vector<tuning::KernelTuningCacheEntryRef>& refs) {
  json out = json::array();
  for (const auto& r : refs) {
    out.push_back({{"key", r.key.key.to_string()}, {"execution", r.key.execution_identity}, {"name", r.name},
                   {"reason", r.reason}});
  }
  return out;
}

json load_report_json(const tuning::KernelTuningCacheLoadReport& report) {
  json entries = json::array();
  for (const auto& e : report.entries) {
    entries.push_back({{"index", e.index},
                       {"line", e.line},
                       {"key", e.key ? json(e.key->key.to_string()) : json()},
                       {"name", e.name},
                       {"status", std::string(to_string(e.status))},
                       {"field", e.field},
                       {"reason", e.reason},
                       {"effective_threads", e.effective_threads}});
  }
  json missing = json::array();
  for (const KernelTuningKey& key : report.missing) missing.push_back(key.to_string());
  return {{"path", report.path.string()},
          {"file_status", std::string(to_string(report.file_status))},
          {"file_reason", report.file_reason},
          {"salvage_reason", report.salvage_reason},
          {"entries", std::move(entries)},
          {"missing", std::move(missing)},
          {"published_generation", report.published_generation ? json(*report.published_generation) : json()},
          {"summary", report.summary()}};
}

json update_report_json(const tuning::KernelTuningCacheUpdateReport& report) {
  return {{"path", report.path.string()},
          {"status", std::string(to_string(report.status))},
          {"ok", report.ok()},
          {"error", report.error.is_bad() ? json(report.error.message()) : json()},
          {"written", entry_refs_json(report.written)},
          {"replaced", entry_refs_json(report.replaced)},
          {"kept", entry_refs_json(report.kept)},
          {"pruned", entry_refs_json(report.pruned)},
          {"rejected", entry_refs_json(report.rejected)},
          {"dropped", entry_refs_json(report.dropped)},
          {"preserved", report.preserved},
          {"moved_aside", report.moved_aside ? json(report.moved_aside->string()) : json()},
          {"summary", report.summary()}};
}

tuning::KernelCalibrationSelection selection_of(const std::optional<std::string>& library,
                                                const std::vector<std::string>& kernels,
                                                const std::vector<std::string>& implementations,
                                                const std::vector<std::string>& element_types) {
  tuning::KernelCalibrationSelection selection;
  selection.library = library;
  selection.kernels = kernels;
  selection.implementations = implementations;
  for (const std::string& name : element_types) {
    auto type = core::parse_data_type(name);
    if (!type) throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, "element_types: unknown data type '" + name + "'"));
    selection.element_types.push_back(*type);
  }
  return selection;
}

tuning::KernelTuningCacheOptions cache_options_of(const std::optional<std::string>& path, bool read_only) {
  tuning::KernelTuningCacheOptions options;
  if (path) options.path = *path;
  options.read_only = read_only;
  return options;
}

// The one registered key of `kernel` and `element_type` (and the library and
// implementation when given); INVALID_VALUE naming the candidates otherwise.
KernelTuningKey find_key(const std::string& kernel, const std::string& element_type,
                         const std::optional<std::string>& library, const std::optional<std::string>& implementation) {
  const auto type = core::parse_data_type(element_type);
  if (!type) throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, "unknown data type '" + element_type + "'"));
  std::vector<KernelTuningKey> found;
  for (const KernelTuningKey& key : tuning::KernelTuningRegistry::global().snapshot()->keys()) {
    if (key.kernel == kernel && key.element_type == *type && (!library || key.library == *library) &&
        (!implementation || key.implementation == *implementation)) {
      found.push_back(key);
    }
  }
  if (found.size() == 1) return found.front();
  std::string names;
  for (const KernelTuningKey& key : found) names += (names.empty() ? "" : ", ") + key.to_string();
  throw ErrorRaised(Error(ErrorCode::INVALID_VALUE,
                          found.empty() ? "no registered key for kernel '" + kernel + "' and " + element_type
                                        : "several registered keys match (" + names + "): name the library or implementation"));
}

}  // namespace

void bind_tuning(py::module_& m) {
  py::class_<tuning::CalibratedKernelProfile>(m, "CalibratedProfile",
                                              "One key's calibrated values and the execution they were measured for")
      .def_property_readonly("name", [](const tuning::CalibratedKernelProfile& p) { return p.name; })
      .def_property_readonly("key", [](const tuning::CalibratedKernelProfile& p) { return p.parameters.key.to_string(); })
      .def_property_readonly("values",
                             [](const tuning::CalibratedKernelProfile& p) { return to_python(values_json(p.parameters)); })
      .def_property_readonly("execution",
                             [](const tuning::CalibratedKernelProfile& p) { return to_python(cli::to_json(p.execution)); })
      .def_property_readonly("report_digest", [](const tuning::CalibratedKernelProfile& p) { return p.report_digest; })
      .def_property_readonly("library_version",
                             [](const tuning::CalibratedKernelProfile& p) { return p.library_version; })
      .def("__repr__", [](const tuning::CalibratedKernelProfile& p) {
        return "<CalibratedProfile " + p.parameters.key.to_string() + ": " + p.parameters.to_string() + ">";
      });

  m.def(
      "load_kernel_tuning_cache",
      [](std::optional<std::string> library, std::vector<std::string> kernels, std::vector<std::string> implementations,
         std::vector<std::string> element_types, std::optional<std::string> path, bool read_only) {
        const auto selection = selection_of(library, kernels, implementations, element_types);
        tuning::KernelTuningCacheLoadReport report;
        {
          py::gil_scoped_release unlocked;
          report = tuning::LoadKernelTuningCache(selection, cache_options_of(path, read_only));
        }
        return to_python(load_report_json(report));
      },
      py::kw_only(), py::arg("library") = py::none(), py::arg("kernels") = std::vector<std::string>{},
      py::arg("implementations") = std::vector<std::string>{}, py::arg("element_types") = std::vector<std::string>{},
      py::arg("path") = py::none(), py::arg("read_only") = false);

  m.def(
      "calibrate_registered_kernels",
      [](std::optional<std::string> library, std::vector<std::string> kernels, std::vector<std::string> implementations,
         std::vector<std::string> element_types, bool only_missing, double time_budget, std::size_t memory_budget_mib,
         std::uint32_t threads, std::uint64_t seed,
         std::optional<std::function<void(const std::string&, const std::string&)>> progress) {
        auto selection = selection_of(library, kernels, implementations, element_types);
        selection.only_missing = only_missing;
        tuning::CalibrationOptions options;
        options.time_budget = std::chrono::milliseconds(static_cast<std::int64_t>(time_budget * 1000));
        options.memory_budget_bytes = memory_budget_mib << 20;
        options.maximum_threads = threads;
        options.seed = seed;
        if (progress) {
          // Called on this thread with the GIL released: take it for the callback.
          options.progress = [callback = *progress](const KernelTuningKey& key, std::string_view event) {
            py::gil_scoped_acquire locked;
            callback(key.to_string(), std::string(event));
          };
        }
        tuning::CalibrationBatchReport report;
        {
          py::gil_scoped_release unlocked;
          report = tuning::CalibrateRegisteredKernels(selection, options);
        }
        py::dict out = to_python(json::parse(report.to_json()));
        out["successful_profiles"] = py::cast(report.successful_profiles());
        return out;
      },
      py::kw_only(), py::arg("library") = py::none(), py::arg("kernels") = std::vector<std::string>{},
      py::arg("implementations") = std::vector<std::string>{}, py::arg("element_types") = std::vector<std::string>{},
      py::arg("only_missing") = false, py::arg("time_budget") = 10.0, py::arg("memory_budget_mib") = 512,
      py::arg("threads") = 0, py::arg("seed") = 0x7E5EC0DE, py::arg("progress") = py::none());

  m.def(
      "update_kernel_tuning_cache",
      [](const std::vector<tuning::CalibratedKernelProfile>& profiles, std::optional<std::string> path, bool read_only,
         bool replace_existing) {
        auto options = cache_options_of(path, read_only);
        options.replace_existing = replace_existing;
        tuning::KernelTuningCacheUpdateReport report;
        {
          py::gil_scoped_release unlocked;
          report = tuning::UpdateKernelTuningCache(profiles, options);
        }
        return to_python(update_report_json(report));
      },
      py::arg("profiles"), py::kw_only(), py::arg("path") = py::none(), py::arg("read_only") = false,
      py::arg("replace_existing") = true);

  py::class_<tuning::TuningSession>(
      m, "Session",
      "A tuning session: the configuration every kernel resolves, captured when the session is created (later "
      "cache loads and calibrations do not change it). Session() takes the registry as it is now; "
      "portable_defaults_only=True the compiled defaults only; profile='name' one registered profile only; "
      "overrides=[{'kernel': 'Abs', 'element_type': 'float', 'values': {'algorithm.simd_min_elements': 64}}] "
      "explicit values. explain(kernel, element_type) says which values a kernel resolves and where they came "
      "from (key, values, source, profile_name, rejected, text).")
      .def(py::init([](bool portable_defaults_only, std::optional<std::string> profile,
                       std::optional<std::string> calibrated_digest, std::optional<std::uint32_t> threads,
                       const std::vector<py::dict>& overrides) {
             tuning::TuningSessionOptions options;
             options.portable_defaults_only = portable_defaults_only;
             options.profile_name = profile;
             options.calibrated_digest = calibrated_digest;
             options.threads = threads;
             for (const py::dict& o : overrides) {
               const KernelTuningKey key = find_key(
                   o["kernel"].cast<std::string>(), o["element_type"].cast<std::string>(),
                   o.contains("library") ? std::optional(o["library"].cast<std::string>()) : std::nullopt,
                   o.contains("implementation") ? std::optional(o["implementation"].cast<std::string>()) : std::nullopt);
               tuning::KernelTuningParameters parameters{key, {}};
               for (const auto& [name, value] : o["values"].cast<py::dict>()) {
                 parameters.values[name.cast<std::string>()] = to_value(value);
               }
               options.overrides.push_back(std::move(parameters));
             }
             Result<tuning::TuningSession> session = tuning::TuningSession::create(std::move(options));
             raise_if_bad(session.ok() ? Error::ok() : session.error());
             return std::move(session).value();
           }),
           py::kw_only(), py::arg("portable_defaults_only") = false, py::arg("profile") = py::none(),
           py::arg("calibrated_digest") = py::none(), py::arg("threads") = py::none(),
           py::arg("overrides") = std::vector<py::dict>{})
      .def_property_readonly("generation", &tuning::TuningSession::generation)
      .def_property_readonly("execution",
                             [](const tuning::TuningSession& s) { return to_python(cli::to_json(s.execution())); })
      .def(
          "explain",
          [](const tuning::TuningSession& session, const std::string& kernel, const std::string& element_type,
             std::optional<std::string> library, std::optional<std::string> implementation) {
            const tuning::Resolution r = session.explain(find_key(kernel, element_type, library, implementation));
            json rejected = json::array();
            for (const tuning::RejectedCandidate& c : r.rejected) {
              rejected.push_back({{"profile", c.profile}, {"source", std::string(to_string(c.source))}, {"reason", c.reason}});
            }
            py::dict out = to_python(json{{"key", key_json(r.parameters.key)},
                                          {"values", values_json(r.parameters)},
                                          {"source", std::string(to_string(r.source))},
                                          {"profile_name", r.profile_name},
                                          {"base_source", r.base_source ? json(std::string(to_string(*r.base_source))) : json()},
                                          {"generation", r.generation},
                                          {"rejected", std::move(rejected)},
                                          {"text", r.to_string()}});
            return out;
          },
          py::arg("kernel"), py::arg("element_type"), py::kw_only(), py::arg("library") = py::none(),
          py::arg("implementation") = py::none());

  m.def("registered_keys", [] {
    json out = json::array();
    for (const KernelTuningKey& key : tuning::KernelTuningRegistry::global().snapshot()->keys()) {
      out.push_back(key_json(key));
    }
    return to_python(out);
  });
}

}  // namespace tunekit::python
