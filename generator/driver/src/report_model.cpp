#include "report_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "descriptor_json.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/platform/power_policy.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::cli {
namespace {

using nlohmann::json;

Error bad(const std::string& file, const std::string& what) {
  return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: {}", file, what));
}

double number_or(const json& object, const char* field, double otherwise) {
  auto it = object.find(field);
  return it != object.end() && it->is_number() ? it->get<double>() : otherwise;
}

std::string text_or(const json& object, const char* field, const std::string& otherwise = {}) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

// The value at quantile q (0..1) of sorted samples, interpolated.
double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return std::nan("");
  std::sort(samples.begin(), samples.end());
  const double at = q * static_cast<double>(samples.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, samples.size() - 1);
  return samples[below] + (samples[above] - samples[below]) * (at - static_cast<double>(below));
}

std::string key_name(const json& key) {
  if (key.is_string()) return key.get<std::string>();
  return fmt::format("{}/{}/{}/{}/{}/abi{}", text_or(key, "library"), text_or(key, "kernel"),
                     text_or(key, "implementation"), text_or(key, "element_type"), text_or(key, "device", "cpu"),
                     key.value("tuning_abi", 1));
}

// The portable default of a parameter of a key registered in this process.
json portable_default(const json& key, const std::string& parameter) {
  if (!key.is_object()) return nullptr;
  const auto type = core::parse_data_type(text_or(key, "element_type"));
  if (!type) return nullptr;
  tuning::KernelTuningKey k{text_or(key, "library"), text_or(key, "kernel"), text_or(key, "implementation"), *type,
                            platform::DeviceKind::CPU, static_cast<std::uint32_t>(key.value("tuning_abi", 1))};
  const tuning::KernelTuningSchema* schema = tuning::KernelTuningRegistry::global().snapshot()->schema(k);
  if (schema == nullptr) return nullptr;
  const tuning::KernelTuningParameters defaults = schema->defaults();
  auto it = defaults.values.find(parameter);
  if (it == defaults.values.end()) return nullptr;
  if (auto i = it->second.as_int()) return *i;
  if (auto d = it->second.as_double()) return *d;
  return it->second.to_text();
}

class ModelBuilder {
 public:
  explicit ModelBuilder(const ReportOptions& options) : options_(options) {}

  // Reads one input into the model, or into what the comparison reads for
  // an input from before (charted only when it is not). A document of the
  // right kind whose fields have other types than tunekit writes is refused
  // naming the file, never a crash.
  Error add(const std::string& file, bool before) {
    try {
      return add_unchecked(file, before);
    } catch (const json::exception& e) {
      return bad(file, fmt::format("a field has a type tunekit does not write ({})", e.what()));
    }
  }

  Error add_unchecked(const std::string& file, bool before) {
    Result<std::string> text = store::read_file(file);
    if (!text.ok()) return bad(file, text.error().message());
    json& calibration = before ? before_calibration_ : model_["calibration"];
    json& shapes = before ? before_shapes_ : model_["shapes"];
    const json document = json::parse(*text, nullptr, false);
    Error added;
    std::string kind;
    if (document.is_discarded()) {
      Result<tuning::ParsedKernelTuningCache> cache = tuning::salvage_kernel_tuning_cache(*text, file);
      if (!cache.ok()) return bad(file, "neither JSON nor a calibration cache: " + cache.error().message());
      if (!before) add_cache(file, *cache);
      kind = "calibration cache";
    } else if (document.is_object() && document.contains("calibrated")) {
      added = add_calibration(file, document, calibration, !before);
      kind = "calibration report";
    } else if (document.is_object() && document.contains("engine_overrides")) {
      if (!before) added = add_overrides(file, *text);
      kind = "engine-override file";
    } else if (document.is_array()) {
      added = add_shapes(file, document, shapes, !before);
      kind = "tune --json";
    } else {
      return bad(file, "JSON that is neither a calibration report (\"calibrated\"), an override file "
                       "(\"engine_overrides\") nor the output of `tune --json` (an array of shapes)");
    }
    if (added.is_bad()) return added;
    model_["inputs"].push_back({{"file", file}, {"kind", kind}, {"before", before}});
    return Error::ok();
  }

  json& model() { return model_; }
  const json& before_calibration() const { return before_calibration_; }
  const json& before_shapes() const { return before_shapes_; }

 private:
  std::string chart(json spec) {
    const std::string id = fmt::format("chart{}", model_["charts"].size());
    model_["charts"][id] = std::move(spec);
    return id;
  }

  // Crossover probes from the candidates named "size=N path=P", grouped by
  // path; other candidates as they are.
  // The chart id, or null when no candidate was measured for `parameter`.
  json parameter_chart(const json& key, const std::string& parameter, const json& selected_value,
                       const json& candidates) {
    static const std::regex probe(R"(^size=(\d+) path=(.+)$)");
    std::map<std::string, std::vector<std::array<double, 3>>> paths;
    std::map<std::string, int> times_seen;
    json rows = json::array();
    for (const json& c : candidates) {
      if (text_or(c, "parameter") != parameter) continue;
      const std::string name = text_or(c, "candidate");
      const double median = number_or(c, "median_ms", std::nan(""));
      const double mad = number_or(c, "mad_ms", 0.0);
      std::smatch m;
      if (std::regex_match(name, m, probe)) {
        paths[m[2].str()].push_back({std::stod(m[1].str()), median, mad});
      } else {
        // A candidate timed again (a winner confirmed) keeps both rows.
        const int seen = ++times_seen[name];
        rows.push_back({{"label", seen == 1 ? name : fmt::format("{} (#{})", name, seen)},
                        {"median", median},
                        {"low", median - mad},
                        {"high", median + mad},
                        {"highlight", false}});
      }
    }
    const json default_value = portable_default(key, parameter);
    if (!paths.empty()) {
      json spec{{"kind", "crossover"}, {"title", parameter}, {"paths", json::array()}, {"markers", json::array()}};
      std::size_t points = 0;
      for (auto& [path, probes] : paths) {
        std::sort(probes.begin(), probes.end());
        spec["paths"].push_back({{"name", path}, {"points", probes}});
        points += 3 * probes.size();  // the median and both edges of the band
      }
      if (selected_value.is_number()) spec["markers"].push_back({{"label", "chosen"}, {"x", selected_value}});
      if (default_value.is_number()) spec["markers"].push_back({{"label", "portable default"}, {"x", default_value}});
      spec["expected_points"] = points + 2 * spec["markers"].size();
      return chart(std::move(spec));
    }
    if (!rows.empty()) {
      json spec{{"kind", "bars"}, {"title", parameter}, {"unit", "ms"}, {"rows", rows}, {"band", nullptr},
                {"expected_points", 2 * rows.size()}};
      return chart(std::move(spec));
    }
    return nullptr;
  }

  Error add_calibration(const std::string& file, const json& document, json& into, bool charted) {
    for (const char* list : {"calibrated", "not_calibrated", "skipped", "unsupported"}) {
      if (document.contains(list) && !document[list].is_array()) return bad(file, fmt::format("\"{}\" is not an array", list));
    }
    // Keys measured in full: the calibrated ones, and those that kept every
    // value (a not-calibrated entry with its report).
    std::vector<std::pair<const json*, const char*>> measured_keys;
    for (const json& entry : document["calibrated"]) {
      if (!entry.is_object() || !entry.contains("report") || !entry["report"].is_object()) {
        return bad(file, "a calibrated key without its report");
      }
      measured_keys.emplace_back(&entry, "calibrated");
    }
    // (Pointers into `document` itself: value() would return a copy that
    // does not outlive the loop.)
    if (document.contains("not_calibrated")) {
      for (const json& entry : document["not_calibrated"]) {
        if (entry.is_object() && entry.contains("report") && entry["report"].is_object()) {
          measured_keys.emplace_back(&entry, "every value kept");
        }
      }
    }
    for (const auto& [entry_pointer, outcome] : measured_keys) {
      const json& entry = *entry_pointer;
      const json& report = entry["report"];
      json key{{"name", key_name(report.value("key", entry.value("key", json())))}, {"outcome", outcome}};
      key["execution"] = report.value("execution", json());
      key["elapsed_ms"] = report.value("elapsed_ms", json());
      key["parameters"] = json::array();
      if (!model_.contains("machine") && report.contains("processor")) {
        model_["machine"] = {{"processor", report["processor"]},
                             {"execution", report.value("execution", json())},
                             {"power", report.value("power", json())},
                             {"from", file}};
      }
      const json candidates = report.value("candidates", json::array());
      const json& report_key = report.value("key", json());
      for (const json& s : report.value("selected", json::array())) {
        const std::string parameter = text_or(s, "parameter");
        key["parameters"].push_back({{"name", parameter},
                                     {"value", s.value("value", json())},
                                     {"reason", text_or(s, "reason")},
                                     {"portable_default", portable_default(report_key, parameter)}});
      }
      // One chart per parameter the candidates were measured for (the
      // tiles are measured together as "algorithm.tiles"), in order.
      key["charts"] = json::array();
      std::vector<std::string> measured;
      for (const json& c : candidates) {
        const std::string parameter = text_or(c, "parameter");
        if (std::find(measured.begin(), measured.end(), parameter) == measured.end()) measured.push_back(parameter);
      }
      for (const std::string& parameter : measured) {
        if (!charted) break;
        json chosen;
        for (const json& p : key["parameters"]) {
          if (p["name"] == parameter) chosen = p["value"];
        }
        const json id = parameter_chart(report_key, parameter, chosen, candidates);
        if (!id.is_null()) key["charts"].push_back(id);
      }
      into.push_back(std::move(key));
    }
    for (const char* list : {"not_calibrated", "skipped", "unsupported"}) {
      for (const json& entry : document.value(list, json::array())) {
        if (entry.is_object() && entry.contains("report")) continue;  // shown with the measured keys
        into.push_back({{"name", key_name(entry.value("key", json()))},
                        {"outcome", std::string(list) == "not_calibrated" ? "not calibrated" : list},
                        {"reason", text_or(entry, "reason")},
                        {"parameters", json::array()},
                        {"charts", json::array()}});
      }
    }
    return Error::ok();
  }

  Error add_overrides(const std::string& file, const std::string& text) {
    Result<graph::OverrideFile> read = graph::parse_override_file(text, file);
    if (!read.ok()) return bad(file, read.error().message());
    for (const graph::OverrideEntry& e : read->entries) {
      std::vector<std::string> tensors, knobs;
      for (const auto& t : e.tensors) tensors.push_back(fmt::format("{}={}", t.tensor_id, fmt::join(t.dims, "x")));
      for (const auto& k : e.knobs) knobs.push_back(fmt::format("{}={}", k.knob_id, k.value.to_text()));
      model_["overrides"].push_back(
          {{"file", file},
           {"op", e.op},
           {"engine", e.describe_engine()},
           {"knobs", knobs.empty() ? std::string("defaults") : fmt::format("{}", fmt::join(knobs, " "))},
           {"shape", fmt::format("{}", fmt::join(tensors, " "))},
           {"min_time_ms", e.metadata && e.metadata->min_time_ms ? json(*e.metadata->min_time_ms) : json()},
           {"timestamp", e.metadata ? e.metadata->timestamp : std::string()},
           {"device", e.validators ? e.validators->device_name : std::string()},
           {"engine_catalogue", e.validators ? e.validators->engine_catalogue_version : std::string()}});
    }
    for (const auto& r : read->rejected) model_["notes"].push_back(fmt::format("{}: {} (left out)", file, graph::describe(r)));
    return Error::ok();
  }

  Error add_shapes(const std::string& file, const json& document, json& into, bool charted) {
    for (const json& shape : document) {
      if (!shape.is_object() || !shape.contains("candidates") || !shape["candidates"].is_array()) {
        return bad(file, "an element without \"candidates\": not the output of `tune --json`");
      }
      json s{{"graph", text_or(shape, "graph")}, {"shape_set", text_or(shape, "shape_set")}, {"candidates", json::array()},
             {"error", text_or(shape, "error")}, {"winner", nullptr}};
      json rows = json::array();
      double fastest = std::numeric_limits<double>::infinity();
      for (const json& c : shape["candidates"]) {
        std::vector<std::string> knobs;
        for (const json& k : c.value("knobs", json::array())) {
          knobs.push_back(fmt::format("{}={}", text_or(k, "knob_id"), k.value("value", json()).dump()));
        }
        const std::string label = fmt::format("{} {}", text_or(c, "engine_name"),
                                              knobs.empty() ? std::string("defaults") : fmt::format("{}", fmt::join(knobs, " ")));
        const bool succeeded = c.value("succeeded", false);
        std::vector<double> samples;
        for (const json& v : c.value("samples_ms", json::array())) {
          if (v.is_number()) samples.push_back(v.get<double>());
        }
        const double median = number_or(c, "median_time_ms", quantile(samples, 0.5));
        json candidate{{"label", label},
                       {"rank", c.value("rank", -1)},
                       {"succeeded", succeeded},
                       {"median_ms", succeeded ? json(median) : json()},
                       {"min_ms", succeeded ? c.value("min_time_ms", json()) : json()},
                       {"samples", samples.size()},
                       {"against_fastest", c.value("against_fastest", json())},
                       {"tied", c.value("tied_with_fastest", false)},
                       {"error", text_or(c, "error_message")}};
        if (succeeded && c.value("rank", -1) == 0) s["winner"] = label;
        if (succeeded) {
          fastest = std::min(fastest, median);
          rows.push_back({{"label", label},
                          {"median", median},
                          {"low", samples.empty() ? median : quantile(samples, 0.25)},
                          {"high", samples.empty() ? median : quantile(samples, 0.75)},
                          {"highlight", c.value("rank", -1) == 0}});
        }
        s["candidates"].push_back(std::move(candidate));
      }
      if (charted && !rows.empty()) {
        const double band = options_.tie_band_percent / 100.0;
        json spec{{"kind", "bars"},
                  {"title", fmt::format("{} [{}]", s["graph"].get<std::string>(), s["shape_set"].get<std::string>())},
                  {"unit", "ms"},
                  {"rows", rows},
                  {"band", {fastest, fastest * (1.0 + band)}},
                  {"band_label", fmt::format("tie band ({:g}%)", options_.tie_band_percent)},
                  {"expected_points", 3 * rows.size()}};
        s["chart"] = chart(std::move(spec));
      }
      into.push_back(std::move(s));
    }
    return Error::ok();
  }

  void add_cache(const std::string& file, const tuning::ParsedKernelTuningCache& cache) {
    for (const auto& item : cache.entries) {
      const tuning::KernelTuningCacheEntry& e = item.entry;
      model_["cache"].push_back({{"file", file},
                                 {"key", e.parameters.key.to_string()},
                                 {"execution", platform::execution_identity_string(e.execution)},
                                 {"values", e.parameters.to_string()},
                                 {"tunekit_version", e.tunekit_version},
                                 {"library_version", e.library_version}});
    }
    for (const auto& m : cache.malformed) model_["notes"].push_back(m.describe(file) + " (left out)");
  }

  const ReportOptions& options_;
  json before_calibration_ = json::array();
  json before_shapes_ = json::array();
  json model_{{"inputs", json::array()},   {"calibration", json::array()}, {"cache", json::array()},
              {"overrides", json::array()}, {"shapes", json::array()},      {"charts", json::object()},
              {"notes", json::array()}};
};

// What changed between the runs: each shape's winner, and each calibrated value.
json compare(const json& before_shapes, const json& after_shapes, const json& before_keys, const json& after_keys) {
  json out{{"shapes", json::array()}, {"calibration", json::array()}};
  const auto winner_of = [](const json& shape) -> json {
    for (const json& c : shape["candidates"]) {
      if (c.value("succeeded", false) && c.value("rank", -1) == 0) return {{"label", c["label"]}, {"median_ms", c["median_ms"]}};
    }
    return nullptr;
  };
  for (const json& after : after_shapes) {
    for (const json& before : before_shapes) {
      if (before["graph"] != after["graph"] || before["shape_set"] != after["shape_set"]) continue;
      const json old_winner = winner_of(before), new_winner = winner_of(after);
      const bool changed = old_winner.is_null() != new_winner.is_null() ||
                           (!old_winner.is_null() && old_winner["label"] != new_winner["label"]);
      out["shapes"].push_back({{"graph", after["graph"]}, {"shape_set", after["shape_set"]}, {"before", old_winner},
                               {"after", new_winner}, {"changed", changed}});
    }
  }
  for (const json& after : after_keys) {
    for (const json& before : before_keys) {
      if (before["name"] != after["name"]) continue;
      std::set<std::string> names;
      for (const json& p : before["parameters"]) names.insert(p["name"].get<std::string>());
      for (const json& p : after["parameters"]) names.insert(p["name"].get<std::string>());
      for (const std::string& name : names) {
        const auto find = [&name](const json& key) -> json {
          for (const json& p : key["parameters"]) {
            if (p["name"] == name) return p;
          }
          return nullptr;
        };
        const json old_p = find(before), new_p = find(after);
        const json old_value = old_p.is_null() ? json() : old_p["value"];
        const json new_value = new_p.is_null() ? json() : new_p["value"];
        out["calibration"].push_back({{"key", after["name"]},
                                      {"parameter", name},
                                      {"before", old_value},
                                      {"after", new_value},
                                      {"changed", old_value != new_value},
                                      {"reason", new_p.is_null() ? std::string() : new_p["reason"].get<std::string>()}});
      }
    }
  }
  return out;
}

}  // namespace

Result<json> build_report_model(const ReportOptions& options) {
  ModelBuilder builder(options);
  json& model = builder.model();
  for (const std::string& file : options.inputs) TUNEKIT_RETURN_IF_ERROR(builder.add(file, false));
  for (const std::string& file : options.before) TUNEKIT_RETURN_IF_ERROR(builder.add(file, true));
  if (!options.before.empty()) {
    model["comparison"] =
        compare(builder.before_shapes(), model["shapes"], builder.before_calibration(), model["calibration"]);
  }
  const platform::CpuExecutionDescriptor here = platform::detect_execution_descriptor();
  model["generated"] = {{"tunekit_version", kVersion},
                        {"processor", to_json(here.processor)},
                        {"execution", to_json(here)},
                        {"power", to_json(platform::detect_power_policy())}};
  model["title"] = options.title;
  return model;
}

}  // namespace tunekit::cli
