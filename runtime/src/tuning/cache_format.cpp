// The calibration cache's TOML form: a hand-built writer (fixed field order,
// stable floats) and a reader that checks every entry alone, with a salvage
// mode that recovers the intact entries of a document toml++ rejects.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "toml_support.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"

namespace tunekit::tuning {
namespace {

using toml_support::FieldReader;
using toml_support::Problem;
using toml_support::quote;

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

// ---- writing ----------------------------------------------------------------

template <typename T>
void optional_line(std::string& out, std::string_view name, const std::optional<T>& value) {
  if (value) out += fmt::format("{} = {}\n", name, *value);
}

void write_entry(std::string& out, const KernelTuningCacheEntry& entry) {
  const KernelTuningKey& key = entry.parameters.key;
  const platform::CpuDescriptor& cpu = entry.execution.processor;
  const platform::CpuExecutionDescriptor& execution = entry.execution;

  out += "\n[[entries]]\n";
  out += fmt::format("name = {}\n", quote(entry.name));
  out += fmt::format("library = {}\n", quote(key.library));
  out += fmt::format("kernel = {}\n", quote(key.kernel));
  out += fmt::format("implementation = {}\n", quote(key.implementation));
  out += fmt::format("element_type = {}\n", quote(core::to_string(key.element_type)));
  out += fmt::format("device = {}\n", quote(platform::to_string(key.device)));
  out += fmt::format("tuning_abi = {}\n", key.tuning_abi);
  out += fmt::format("library_version = {}\n", quote(entry.library_version));
  out += fmt::format("tunekit_version = {}\n", quote(entry.tunekit_version));
  out += fmt::format("report_digest = {}\n", quote(entry.report_digest));

  out += "\n[entries.processor]\n";
  out += fmt::format("architecture = {}\n", quote(cpu.architecture));
  out += fmt::format("vendor = {}\n", quote(cpu.vendor));
  optional_line(out, "family", cpu.family);
  optional_line(out, "model", cpu.model);
  optional_line(out, "stepping", cpu.stepping);
  out += fmt::format("microarchitecture = {}\n", quote(cpu.microarchitecture));
  std::vector<std::string> features;
  for (const std::string& name : cpu.features.names()) features.push_back(quote(name));
  out += fmt::format("features = [{}]\n", fmt::join(features, ", "));

  std::string diagnostics;
  if (!cpu.model_name.empty()) diagnostics += fmt::format("model_name = {}\n", quote(cpu.model_name));
  optional_line(diagnostics, "cache_line_bytes", cpu.cache_line_bytes);
  optional_line(diagnostics, "l1_data_bytes", cpu.l1_data_bytes);
  optional_line(diagnostics, "l1_data_instances", cpu.l1_data_instances);
  optional_line(diagnostics, "l2_bytes", cpu.l2_bytes);
  optional_line(diagnostics, "l2_instances", cpu.l2_instances);
  optional_line(diagnostics, "l3_bytes", cpu.l3_bytes);
  optional_line(diagnostics, "l3_instances", cpu.l3_instances);
  optional_line(diagnostics, "physical_cores", cpu.physical_cores);
  optional_line(diagnostics, "logical_cores", cpu.logical_cores);
  if (!diagnostics.empty()) out += "\n[entries.processor.diagnostics]\n" + diagnostics;

  out += "\n[entries.execution]\n";
  out += fmt::format("effective_threads = {}\n", execution.effective_threads);
  out += fmt::format("numa_policy = {}\n", quote(execution.numa_policy.to_string()));
  diagnostics.clear();
  if (!execution.affinity.empty()) diagnostics += fmt::format("affinity = {}\n", quote(execution.affinity.to_string()));
  if (execution.cgroup_cpu_limit) {
    diagnostics += fmt::format("cgroup_cpu_limit = {}\n", toml_support::format_double(*execution.cgroup_cpu_limit));
  }
  optional_line(diagnostics, "requested_threads", execution.requested_threads);
  if (!diagnostics.empty()) out += "\n[entries.execution.diagnostics]\n" + diagnostics;

  out += "\n[entries.parameters]\n";
  for (const auto& [name, value] : entry.parameters.values) {
    out += fmt::format("{} = {}\n", toml_support::format_key(name), toml_support::format_value(value));
  }
}

// ---- reading ----------------------------------------------------------------

std::string entry_path(std::size_t index) { return fmt::format("entries[{}]", index); }

std::optional<std::size_t> size_field(FieldReader& r, const toml::table& t, std::string_view path,
                                      std::string_view key) {
  auto value = r.integer(t, path, key, false, 0, kMaxInt);
  if (!value) return std::nullopt;
  return static_cast<std::size_t>(*value);
}

void read_processor(FieldReader& r, const toml::table& entry, const std::string& path,
                    platform::CpuDescriptor& cpu) {
  const toml::table* t = r.table(entry, path, "processor", true);
  if (!t) return;
  const std::string p = path + ".processor";
  r.only_keys(*t, p, {"architecture", "vendor", "family", "model", "stepping", "microarchitecture", "features",
                      "diagnostics"});
  cpu.architecture = r.string(*t, p, "architecture", true).value_or("");
  cpu.vendor = r.string(*t, p, "vendor", true).value_or("");
  cpu.family = r.uint32(*t, p, "family", false);
  cpu.model = r.uint32(*t, p, "model", false);
  cpu.stepping = r.uint32(*t, p, "stepping", false);
  cpu.microarchitecture = r.string(*t, p, "microarchitecture", true).value_or("");
  cpu.features = r.features(*t, p, "features", true).value_or(platform::CpuFeatureSet{});
  const toml::table* d = r.table(*t, p, "diagnostics", false);
  if (!d) return;
  const std::string dp = p + ".diagnostics";
  r.only_keys(*d, dp, {"model_name", "cache_line_bytes", "l1_data_bytes", "l1_data_instances", "l2_bytes",
                       "l2_instances", "l3_bytes", "l3_instances", "physical_cores", "logical_cores"});
  cpu.model_name = r.string(*d, dp, "model_name", false).value_or("");
  cpu.cache_line_bytes = size_field(r, *d, dp, "cache_line_bytes");
  cpu.l1_data_bytes = size_field(r, *d, dp, "l1_data_bytes");
  cpu.l1_data_instances = r.uint32(*d, dp, "l1_data_instances", false);
  cpu.l2_bytes = size_field(r, *d, dp, "l2_bytes");
  cpu.l2_instances = r.uint32(*d, dp, "l2_instances", false);
  cpu.l3_bytes = size_field(r, *d, dp, "l3_bytes");
  cpu.l3_instances = r.uint32(*d, dp, "l3_instances", false);
  cpu.physical_cores = r.uint32(*d, dp, "physical_cores", false);
  cpu.logical_cores = r.uint32(*d, dp, "logical_cores", false);
}

void read_execution(FieldReader& r, const toml::table& entry, const std::string& path,
                    platform::CpuExecutionDescriptor& execution) {
  const toml::table* t = r.table(entry, path, "execution", true);
  if (!t) return;
  const std::string p = path + ".execution";
  r.only_keys(*t, p, {"effective_threads", "numa_policy", "diagnostics"});
  execution.effective_threads = r.uint32(*t, p, "effective_threads", true, 1).value_or(1);
  if (auto text = r.string(*t, p, "numa_policy", true)) {
    auto policy = toml_support::parse_numa_policy(*text);
    if (policy) {
      execution.numa_policy = *policy;
    } else {
      r.fail(t->get("numa_policy"), p + ".numa_policy", fmt::format("unknown NUMA policy '{}'", *text));
    }
  }
  const toml::table* d = r.table(*t, p, "diagnostics", false);
  if (!d) return;
  const std::string dp = p + ".diagnostics";
  r.only_keys(*d, dp, {"affinity", "cgroup_cpu_limit", "requested_threads"});
  if (auto text = r.string(*d, dp, "affinity", false)) {
    auto set = platform::CpuSet::parse(*text);
    if (set) {
      execution.affinity = std::move(*set);
    } else {
      r.fail(d->get("affinity"), dp + ".affinity", fmt::format("'{}' is not a CPU list such as 0-3,8", *text));
    }
  }
  execution.cgroup_cpu_limit = r.number(*d, dp, "cgroup_cpu_limit", false);
  execution.requested_threads = r.uint32(*d, dp, "requested_threads", false, 1);
}

// One entry table; the problem's line numbers are shifted by `line_offset`.
std::variant<KernelTuningCacheEntry, Problem> read_entry(const toml::table& t, const std::string& path,
                                                         std::size_t line_offset) {
  FieldReader r(line_offset);
  KernelTuningCacheEntry entry;
  r.only_keys(t, path, {"name", "library", "kernel", "implementation", "element_type", "device", "tuning_abi",
                        "library_version", "tunekit_version", "report_digest", "processor", "execution",
                        "parameters"});
  entry.name = r.string(t, path, "name", true).value_or("");
  KernelTuningKey& key = entry.parameters.key;
  key.library = r.string(t, path, "library", true, true).value_or("");
  key.kernel = r.string(t, path, "kernel", true, true).value_or("");
  key.implementation = r.string(t, path, "implementation", true, true).value_or("");
  key.element_type = r.data_type(t, path, "element_type").value_or(DataType::FLOAT);
  key.device = r.device(t, path, "device").value_or(platform::DeviceKind::CPU);
  key.tuning_abi = r.uint32(t, path, "tuning_abi", true).value_or(0);
  entry.library_version = r.string(t, path, "library_version", true).value_or("");
  entry.tunekit_version = r.string(t, path, "tunekit_version", true).value_or("");
  entry.report_digest = r.string(t, path, "report_digest", true).value_or("");
  read_processor(r, t, path, entry.execution.processor);
  read_execution(r, t, path, entry.execution);
  if (auto values = r.values(t, path, "parameters", true)) entry.parameters.values = std::move(*values);
  if (r.failed()) return *r.problem();
  return entry;
}

KernelTuningCacheEntryError to_error(std::size_t index, Problem problem) {
  return {index, std::move(problem.field), std::move(problem.message), problem.line, problem.column};
}

std::size_t line_of(const toml::node& node, std::size_t line_offset) {
  return node.source().begin.line > 0 ? node.source().begin.line + line_offset : 0;
}

// Checks the document's top level: schema_version (and no unknown fields).
Error read_header(const toml::table& root, const std::string& source, bool allow_entries) {
  FieldReader r;
  if (allow_entries) {
    r.only_keys(root, "", {"schema_version", "entries"});
  } else {
    r.only_keys(root, "", {"schema_version"});
  }
  auto version = r.integer(root, "", "schema_version", true, 1, kMaxInt);
  if (r.failed()) {
    const Problem& p = *r.problem();
    return {ErrorCode::INVALID_VALUE, p.line > 0 ? fmt::format("{}:{}:{}: {}: {}", source, p.line, p.column,
                                                               p.field, p.message)
                                                 : fmt::format("{}: {}: {}", source, p.field, p.message)};
  }
  if (*version > kKernelTuningCacheSchemaVersion) {
    return {ErrorCode::NOT_SUPPORTED,
            fmt::format("{}: schema_version {} is newer than this tunekit reads ({}); it was written by a newer "
                        "tunekit",
                        source, *version, kKernelTuningCacheSchemaVersion)};
  }
  return Error::ok();
}

void read_entries(const toml::table& root, std::size_t first_index, std::size_t line_offset,
                  ParsedKernelTuningCache& parsed) {
  const toml::node* node = root.get("entries");
  if (!node) return;
  const toml::array* array = node->as_array();
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::size_t index = first_index + i;
    const toml::node& element = *array->get(i);
    const toml::table* table = element.as_table();
    if (!table) {
      parsed.malformed.push_back({index, entry_path(index), "expected a table", line_of(element, line_offset),
                                  element.source().begin.column});
      continue;
    }
    auto result = read_entry(*table, entry_path(index), line_offset);
    if (auto* problem = std::get_if<Problem>(&result)) {
      parsed.malformed.push_back(to_error(index, std::move(*problem)));
    } else {
      parsed.entries.push_back({index, line_of(*table, line_offset), std::get<KernelTuningCacheEntry>(std::move(result))});
    }
  }
}

std::string describe_parse_error(const toml::parse_error& error, const std::string& source, std::size_t line_offset) {
  return fmt::format("{}:{}:{}: {}", source, error.source().begin.line + line_offset, error.source().begin.column,
                     error.description());
}

Result<ParsedKernelTuningCache> parse_document(const toml::table& root, std::string source) {
  TUNEKIT_RETURN_IF_ERROR(read_header(root, source, true));
  if (const toml::node* entries = root.get("entries"); entries && !entries->is_array()) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}:{}:{}: entries: expected an array of tables", source,
                                                       entries->source().begin.line, entries->source().begin.column));
  }
  ParsedKernelTuningCache parsed;
  parsed.source = std::move(source);
  parsed.schema_version = root.get("schema_version")->as_integer()->get();
  read_entries(root, 0, 0, parsed);
  return parsed;
}

bool starts_entry(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line.substr(first, 11) == "[[entries]]";
}

Result<ParsedKernelTuningCache> salvage_pieces(std::string_view text, std::string source, std::string document_error) {
  // Cut before every [[entries]] line: piece 0 is the header.
  std::vector<std::size_t> starts{0};     // byte offsets
  std::vector<std::size_t> start_lines{0};  // 0-based line numbers
  std::size_t line = 0;
  for (std::size_t offset = 0; offset < text.size();) {
    const auto newline = text.find('\n', offset);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline;
    if (starts_entry(text.substr(offset, end - offset))) {
      starts.push_back(offset);
      start_lines.push_back(line);
    }
    offset = end + 1;
    ++line;
  }
  starts.push_back(text.size());

  toml::table header;
  try {
    header = toml::parse(text.substr(0, starts[1]), source);
  } catch (const toml::parse_error& error) {
    return Error(ErrorCode::INVALID_VALUE, describe_parse_error(error, source, 0));
  }
  TUNEKIT_RETURN_IF_ERROR(read_header(header, source, false));

  ParsedKernelTuningCache parsed;
  parsed.source = source;
  parsed.schema_version = header.get("schema_version")->as_integer()->get();
  parsed.salvaged = true;
  parsed.document_error = std::move(document_error);
  for (std::size_t piece = 1; piece + 1 < starts.size(); ++piece) {
    const std::size_t index = piece - 1;
    const std::size_t offset = start_lines[piece];
    toml::table root;
    try {
      root = toml::parse(text.substr(starts[piece], starts[piece + 1] - starts[piece]), source);
    } catch (const toml::parse_error& error) {
      parsed.malformed.push_back({index, entry_path(index), std::string(error.description()),
                                  error.source().begin.line + offset, error.source().begin.column});
      continue;
    }
    const toml::node* entries = root.get("entries");
    if (root.size() != 1 || !entries || !entries->is_array() || entries->as_array()->size() != 1) {
      parsed.malformed.push_back({index, entry_path(index), "the piece after [[entries]] holds more than one entry",
                                  offset + 1, 1});
      continue;
    }
    read_entries(root, index, offset, parsed);
  }
  return parsed;
}

}  // namespace

std::string KernelTuningCacheEntryKey::to_string() const {
  return fmt::format("{} @ {}", key.to_string(), execution_identity);
}

KernelTuningCacheEntryKey KernelTuningCacheEntry::complete_key() const {
  return {parameters.key, platform::execution_identity_string(execution)};
}

CalibratedKernelProfile KernelTuningCacheEntry::to_profile() const {
  return {name, parameters, execution, report_digest, library_version};
}

KernelTuningCacheEntry KernelTuningCacheEntry::from_profile(const CalibratedKernelProfile& profile) {
  return {profile.name, profile.parameters, profile.execution, profile.report_digest, profile.library_version,
          kVersion};
}

std::string KernelTuningCacheEntryError::describe(std::string_view source) const {
  if (line > 0) return fmt::format("{}:{}:{}: {}: {}", source, line, column, field, message);
  return fmt::format("{}: {}: {}", source, field, message);
}

Result<ParsedKernelTuningCache> parse_kernel_tuning_cache(std::string_view text, std::string source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    return Error(ErrorCode::INVALID_VALUE, describe_parse_error(error, source, 0));
  }
  return parse_document(root, std::move(source));
}

Result<ParsedKernelTuningCache> salvage_kernel_tuning_cache(std::string_view text, std::string source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    return salvage_pieces(text, source, describe_parse_error(error, source, 0));
  }
  return parse_document(root, std::move(source));
}

std::string format_kernel_tuning_cache(std::vector<KernelTuningCacheEntry> entries) {
  std::vector<std::pair<KernelTuningCacheEntryKey, const KernelTuningCacheEntry*>> sorted;
  sorted.reserve(entries.size());
  for (const KernelTuningCacheEntry& entry : entries) sorted.emplace_back(entry.complete_key(), &entry);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out =
      "# tunekit kernel tuning cache: calibrated parameters, one entry per tuning key and\n"
      "# execution identity. Written by tunekit under a lock; change it with `tunekit cache`.\n";
  out += fmt::format("schema_version = {}\n", kKernelTuningCacheSchemaVersion);
  for (const auto& [key, entry] : sorted) write_entry(out, *entry);
  return out;
}

std::string find_unwritable_field(const KernelTuningCacheEntry& entry) {
  using toml_support::is_valid_utf8;
  const KernelTuningKey& key = entry.parameters.key;
  if (key.library.empty()) return "library: must not be empty";
  if (key.kernel.empty()) return "kernel: must not be empty";
  if (key.implementation.empty()) return "implementation: must not be empty";
  if (entry.execution.effective_threads < 1) return "execution.effective_threads: must be at least 1";
  if (entry.execution.requested_threads && *entry.execution.requested_threads < 1) {
    return "execution.requested_threads: must be at least 1";
  }
  const std::pair<std::string_view, const std::string*> texts[] = {
      {"name", &entry.name},
      {"library", &key.library},
      {"kernel", &key.kernel},
      {"implementation", &key.implementation},
      {"library_version", &entry.library_version},
      {"tunekit_version", &entry.tunekit_version},
      {"report_digest", &entry.report_digest},
      {"processor.architecture", &entry.execution.processor.architecture},
      {"processor.vendor", &entry.execution.processor.vendor},
      {"processor.microarchitecture", &entry.execution.processor.microarchitecture},
      {"processor.diagnostics.model_name", &entry.execution.processor.model_name},
  };
  for (const auto& [field, text] : texts) {
    if (!is_valid_utf8(*text)) return fmt::format("{}: not valid UTF-8", field);
  }
  for (const auto& [name, value] : entry.parameters.values) {
    if (!is_valid_utf8(name)) return "parameters: a name is not valid UTF-8";
    if (const std::string* text = value.as_string(); text && !is_valid_utf8(*text)) {
      return fmt::format("parameters.{}: not valid UTF-8", name);
    }
  }
  return {};
}

}  // namespace tunekit::tuning
