// The overrides subcommands over the graph module's reader, index and merge.
#include "overrides_command.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine_registrations.hpp"
#include "exit_codes.hpp"
#include "tune_shape.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/knob_json.hpp"
#include "tunekit/graph/override_index.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/graph/override_writer.hpp"
#include "tunekit/graph/tensor.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::cli {
namespace {

using nlohmann::json;

struct OverridesOptions {
  std::vector<std::string> files;
  std::string output;
  bool json = false;
  std::string op;
  std::vector<std::string> criteria;  // NAME=INT
  std::vector<std::string> tensors;   // ID=DIMS[:STRIDES]
  bool any_device = false;
  std::string device = "cpu";  // whose signature the entries' validators must name
  double nearest_limit = -1;  // negative: the selection policy's (environment or default)
};

std::string dims_text(const std::vector<std::int64_t>& dims) { return fmt::format("{}", fmt::join(dims, "x")); }

json entry_json(const graph::OverrideEntry& e) {
  json tensors = json::array();
  for (const auto& t : e.tensors) {
    json tj{{"dim", t.dims}};
    if (!e.positional) tj["tensor_id"] = t.tensor_id;
    if (t.strides) tj["stride"] = *t.strides;
    tensors.push_back(std::move(tj));
  }
  json out{{"index", e.index}, {"op", e.op}, {"criteria", e.criteria}, {"tensors", std::move(tensors)},
           {"knobs", internal::knob_settings_to_json(e.knobs)}, {"wildcard", e.is_wildcard()}};
  out["engine_name"] = e.engine_name ? json(*e.engine_name) : json(nullptr);
  out["engine_id"] = e.engine_id ? json(*e.engine_id) : json(nullptr);
  if (e.metadata && e.metadata->min_time_ms) out["min_time_ms"] = *e.metadata->min_time_ms;
  if (e.metadata && !e.metadata->timestamp.empty()) out["timestamp"] = e.metadata->timestamp;
  if (e.validators) out["device_signature"] = e.validators->device_signature;
  return out;
}

std::vector<graph::OverrideFile> read_all(const std::vector<std::string>& paths, int& exit_code) {
  std::vector<graph::OverrideFile> files;
  for (const std::string& path : paths) {
    Result<graph::OverrideFile> file = graph::read_override_file(path);
    if (!file.ok()) {
      fmt::print(stderr, "tunekit overrides: {}\n", file.error().message());
      exit_code = 2;
      return {};
    }
    files.push_back(std::move(file).value());
  }
  return files;
}

int run_show(const OverridesOptions& o) {
  int exit_code = 0;
  std::vector<graph::OverrideFile> files = read_all(o.files, exit_code);
  if (exit_code != 0) return exit_code;
  if (o.json) {
    json out = json::array();
    for (const auto& f : files) {
      json entries = json::array();
      for (const auto& e : f.entries) entries.push_back(entry_json(e));
      json rejected = json::array();
      for (const auto& r : f.rejected) rejected.push_back({{"entry_index", r.index}, {"reason", r.reason}});
      out.push_back({{"file", f.source}, {"version", f.version}, {"entries", entries}, {"rejected", rejected}});
    }
    std::cout << internal::json_text(out, 2) << '\n';
    return 0;
  }
  for (const auto& f : files) {
    fmt::print("{}: version {}, {} entries, {} rejected\n", f.source, f.version, f.entries.size(), f.rejected.size());
    for (const auto& e : f.entries) {
      std::vector<std::string> tensors;
      for (std::size_t i = 0; i < e.tensors.size(); ++i) {
        const auto& t = e.tensors[i];
        tensors.push_back(fmt::format("{}={}{}", e.positional ? fmt::format("#{}", i) : t.tensor_id, dims_text(t.dims),
                                      t.strides ? ':' + dims_text(*t.strides) : std::string()));
      }
      std::vector<std::string> criteria;
      for (const auto& [name, value] : e.criteria) criteria.push_back(fmt::format("{}={}", name, value));
      fmt::print("  [{}] {} {}{} -> {} {}{}\n", e.index, e.op, fmt::join(tensors, " "),
                 criteria.empty() ? "" : fmt::format(" ({})", fmt::join(criteria, ", ")), e.describe_engine(),
                 graph::describe_knob_settings(e.knobs),
                 e.metadata && e.metadata->min_time_ms ? fmt::format(", {:.6f} ms", *e.metadata->min_time_ms) : "");
    }
    for (const auto& r : f.rejected) fmt::print("  rejected {}\n", graph::describe(r));
  }
  return 0;
}

int run_validate(const OverridesOptions& o) {
  int exit_code = 0;
  for (const std::string& path : o.files) {
    Result<graph::OverrideFile> file = graph::read_override_file(path);
    if (!file.ok()) {
      fmt::print(stderr, "tunekit overrides validate: {}\n", file.error().message());
      exit_code = 2;
      continue;
    }
    fmt::print("{}: version {}, {} valid entries, {} rejected\n", file->source, file->version, file->entries.size(),
               file->rejected.size());
    for (const auto& r : file->rejected) {
      fmt::print(stderr, "tunekit overrides validate: {}: {}\n", file->source, graph::describe(r));
      exit_code = 2;
    }
  }
  return exit_code;
}

int run_merge(const OverridesOptions& o) {
  std::vector<std::filesystem::path> inputs(o.files.begin(), o.files.end());
  Result<std::size_t> merged = graph::merge_override_files(inputs, o.output);
  if (!merged.ok()) {
    fmt::print(stderr, "tunekit overrides merge: {}\n", merged.error().message());
    return output_exit_code(merged.error(), kBadInput);
  }
  fmt::print("merged {} entries from {} files into {}\n", *merged, inputs.size(), core::replace_invalid_utf8(o.output));
  return 0;
}

std::optional<std::vector<std::int64_t>> parse_extents(std::string_view text) {
  std::vector<std::int64_t> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('x', start);
    if (end == std::string_view::npos) end = text.size();
    std::int64_t v = 0;
    const char* first = text.data() + start;
    const char* last = text.data() + end;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || v <= 0) return std::nullopt;
    values.push_back(v);
    start = end + 1;
  }
  return values;
}

// The message quotes the argument, which may be any bytes: printed as UTF-8.
int usage(const std::string& message) {
  fmt::print(stderr, "tunekit overrides lookup: {}\n", core::replace_invalid_utf8(message));
  return 2;
}

int run_lookup(const OverridesOptions& o, const EngineRegistrations& engines) {
  graph::OverrideQuery query;
  query.op = o.op;
  for (const std::string& c : o.criteria) {
    const std::size_t eq = c.find('=');
    std::int64_t v = 0;
    if (eq == std::string::npos || eq == 0 ||
        std::from_chars(c.data() + eq + 1, c.data() + c.size(), v).ptr != c.data() + c.size() || eq + 1 == c.size()) {
      return usage(fmt::format("--criteria '{}': expected NAME=INT", c));
    }
    query.criteria[c.substr(0, eq)] = v;
  }
  for (const std::string& t : o.tensors) {
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0) return usage(fmt::format("--tensor '{}': expected ID=DIMS[:STRIDES]", t));
    const std::string rest = t.substr(eq + 1);
    const std::size_t colon = rest.find(':');
    auto dims = parse_extents(rest.substr(0, colon));
    if (!dims) return usage(fmt::format("--tensor '{}': dims must be positive integers written like 16x64x56x56", t));
    std::vector<std::int64_t> strides = graph::TensorAttributes::packed_strides(*dims);
    if (colon != std::string::npos) {
      auto given = parse_extents(rest.substr(colon + 1));
      if (!given || given->size() != dims->size()) {
        return usage(fmt::format("--tensor '{}': strides must be positive integers, one per dim", t));
      }
      strides = *given;
    }
    query.tensors.push_back({t.substr(0, eq), *dims, strides});
  }
  // The selection policy itself loads the files, so a file it skips is
  // skipped here too, with its reason, and the others still answer.
  graph::OverridePolicy policy;
  policy.set_paths(std::vector<std::filesystem::path>(o.files.begin(), o.files.end()));
  const std::shared_ptr<const graph::OverrideIndex> index = policy.refresh();
  const std::vector<graph::SkippedOverrideFile> skipped = policy.skipped_files();
  json skipped_json = json::array();
  for (const auto& s : skipped) {
    skipped_json.push_back({{"file", s.path.string()}, {"reason", s.reason}});
    if (!o.json) fmt::print("skipped {}: {}\n", core::replace_invalid_utf8(s.path.string()), s.reason);
  }
  graph::OverrideExplanation explained;
  if (index) {
    for (const auto& f : index->files()) {
      for (const auto& r : f.rejected) {
        fmt::print(stderr, "tunekit overrides lookup: {}: {} (skipped)\n", f.source, graph::describe(r));
      }
    }
    graph::OverrideLookupContext context;
    if (!o.any_device) {
      // The device the selection policy would run on: its signature must be
      // the one an entry was tuned on (a GPU's is "hip:..."). No such device
      // here is a failure (exit 1) with its reason, an unknown name a usage error.
      Result<std::unique_ptr<platform::Device>> device = open_device(o.device);
      if (!device.ok()) {
        fmt::print(stderr, "tunekit overrides lookup: {}\n", device.error().message());
        return device.error().code() == ErrorCode::INVALID_VALUE ? kBadInput : kTuningFailure;
      }
      context.device_signature = (*device)->signature();
    }
    context.nearest_limit = o.nearest_limit >= 0 ? o.nearest_limit : graph::nearest_shape_limit_from_environment();
    explained = index->explain(query, context);
  }

  if (explained.match) {
    const graph::OverrideMatch& m = *explained.match;
    std::int64_t engine_id = m.engine_id;
    if (engine_id < 0 && !m.engine_name.empty()) {
      graph::EngineRegistry registered;
      if (register_engines(engines, registered).is_good()) {
        if (const graph::Engine* e = registered.find(m.engine_name)) engine_id = e->descriptor().id;
      }
    }
    if (o.json) {
      json out{{"matched", true},  {"engine_name", m.engine_name}, {"engine_id", engine_id},
               {"knobs", internal::knob_settings_to_json(m.entry->knobs)}, {"file", m.file}, {"entry_index", m.entry->index},
               {"exact", m.exact}, {"skipped", skipped_json}};
      // The tuned shape that stood in for the query's.
      if (m.nearest_distance) {
        out["nearest"] = {{"distance", *m.nearest_distance}, {"tensors", entry_json(*m.entry).at("tensors")}};
      }
      std::cout << internal::json_text(out, 2) << '\n';
    } else {
      std::string kind = m.exact ? "exact" : "wildcard";
      if (m.nearest_distance) {
        std::vector<std::string> shape;
        for (const auto& t : m.entry->tensors) shape.push_back(fmt::format("{}={}", t.tensor_id, dims_text(t.dims)));
        kind = fmt::format("the nearest tuned shape, {}, at distance {:.3g}", fmt::join(shape, " "), *m.nearest_distance);
      }
      fmt::print("matched: entry {} of {} ({}): engine '{}' (id {}) with {}\n", m.entry->index, m.file, kind,
                 m.engine_name, engine_id, graph::describe_knob_settings(m.entry->knobs));
    }
    return 0;
  }
  if (o.json) {
    json misses = json::array();
    for (const auto& miss : explained.misses) {
      misses.push_back({{"file", miss.file}, {"entry_index", miss.entry_index}, {"reason", miss.reason}});
    }
    std::cout << internal::json_text({{"matched", false}, {"misses", misses}, {"skipped", skipped_json}}, 2) << '\n';
  } else {
    fmt::print("no entry matches\n");
    for (const auto& miss : explained.misses) fmt::print("  entry {} of {}: {}\n", miss.entry_index, miss.file, miss.reason);
  }
  return 0;
}

}  // namespace

void add_overrides_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines) {
  auto o = std::make_shared<OverridesOptions>();
  CLI::App* group = app.add_subcommand("overrides", "Inspect, merge, validate and query engine-override files");
  group->require_subcommand(1);

  CLI::App* show = group->add_subcommand("show", "Print the entries of override files");
  show->add_option("files", o->files, "Override files (JSON)")->required();
  show->add_flag("--json", o->json, "Print JSON");
  show->callback([o, &exit_code] { exit_code = run_show(*o); });

  CLI::App* validate = group->add_subcommand("validate", "Check override files entry by entry (exit 2 on any problem)");
  validate->add_option("files", o->files, "Override files (JSON)")->required();
  validate->callback([o, &exit_code] { exit_code = run_validate(*o); });

  CLI::App* merge = group->add_subcommand("merge", "Combine version-2 files; earlier files win for equal keys");
  merge->add_option("files", o->files, "Input override files, highest precedence first")->required();
  merge->add_option("--output,-o", o->output, "The merged file")->required();
  merge->callback([o, &exit_code] { exit_code = run_merge(*o); });

  CLI::App* lookup = group->add_subcommand("lookup", "Explain which entry the selection policy picks");
  lookup->add_option("files", o->files,
                     "Override files, earlier first (as in TUNEKIT_HEUR_CONFIG_PATH); like the selection policy, a "
                     "missing or unreadable file is skipped with its reason")
      ->required();
  lookup->add_option("--op", o->op, "Operation string (matmul, conv_fprop, ...)")->required();
  lookup->add_option("--criteria", o->criteria, "NAME=INT, repeatable");
  lookup->add_option("--tensor", o->tensors, "ID=DIMS[:STRIDES] such as X=16x64x56x56, repeatable (strides default to packed)");
  CLI::Option* any_device = lookup->add_flag("--any-device", o->any_device, "Ignore the entries' device validators");
  lookup->add_option("--device", o->device,
                     "The device whose signature the entries' validators must name: cpu (default), or hip (hip:N "
                     "for device N), the GPU that tune --device hip tuned on; without one the lookup stops and says "
                     "why (exit 1)")
      ->capture_default_str()
      ->excludes(any_device);
  lookup->add_option("--nearest-limit", o->nearest_limit,
                     "Largest distance at which the nearest tuned shape stands in when no entry matches (default: "
                     "TUNEKIT_HEUR_NEAREST_LIMIT, else 2; 0: off)")
      ->check(CLI::NonNegativeNumber);
  lookup->add_flag("--json", o->json, "Print JSON");
  lookup->callback([o, &exit_code, &engines] { exit_code = run_lookup(*o, engines); });
}

}  // namespace tunekit::cli
