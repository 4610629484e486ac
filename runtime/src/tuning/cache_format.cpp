// Reading the calibration cache's TOML form: every entry is checked alone,
// and a salvage mode recovers the intact entries of a document toml++
// rejects. The entry helpers of kernel_tuning_cache_file.hpp live here too.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <variant>

#include "toml_support.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/store/toml_limits.hpp"
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"

namespace tunekit::tuning {
namespace {

using toml_support::FieldReader;
using toml_support::Problem;

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

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

// Why a text is not a TOML document tunekit reads: beyond store::TomlLimits
// (checked first, so that toml++ never sees such a text) or a syntax error.
struct SyntaxProblem {
  std::size_t line = 0;  // within the parsed text, 1-based; 0 for the file as a whole (too large)
  std::size_t column = 0;
  std::string message;
};

std::variant<toml::table, SyntaxProblem> parse_toml(std::string_view text, const std::string& source) {
  if (auto violation = store::find_toml_limit_violation(text)) {
    return SyntaxProblem{violation->line, violation->column, std::move(violation->message)};
  }
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    return SyntaxProblem{error.source().begin.line, error.source().begin.column, std::string(error.description())};
  }
}

std::string describe(const SyntaxProblem& problem, const std::string& source) {
  if (problem.line == 0) return fmt::format("{}: {}", source, problem.message);
  return fmt::format("{}:{}:{}: {}", source, problem.line, problem.column, problem.message);
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

  auto header_piece = parse_toml(text.substr(0, starts[1]), source);
  if (auto* problem = std::get_if<SyntaxProblem>(&header_piece)) {
    return Error(ErrorCode::INVALID_VALUE, describe(*problem, source));
  }
  const toml::table& header = std::get<toml::table>(header_piece);
  TUNEKIT_RETURN_IF_ERROR(read_header(header, source, false));

  ParsedKernelTuningCache parsed;
  parsed.source = source;
  parsed.schema_version = header.get("schema_version")->as_integer()->get();
  parsed.salvaged = true;
  parsed.document_error = std::move(document_error);
  for (std::size_t piece = 1; piece + 1 < starts.size(); ++piece) {
    const std::size_t index = piece - 1;
    const std::size_t offset = start_lines[piece];
    auto parsed_piece = parse_toml(text.substr(starts[piece], starts[piece + 1] - starts[piece]), source);
    if (auto* problem = std::get_if<SyntaxProblem>(&parsed_piece)) {
      parsed.malformed.push_back({index, entry_path(index), std::move(problem->message), problem->line + offset,
                                  problem->column});
      continue;
    }
    const toml::table& root = std::get<toml::table>(parsed_piece);
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
  auto root = parse_toml(text, source);
  if (auto* problem = std::get_if<SyntaxProblem>(&root)) return Error(ErrorCode::INVALID_VALUE, describe(*problem, source));
  return parse_document(std::get<toml::table>(root), std::move(source));
}

Result<ParsedKernelTuningCache> salvage_kernel_tuning_cache(std::string_view text, std::string source) {
  auto root = parse_toml(text, source);
  if (auto* problem = std::get_if<SyntaxProblem>(&root)) {
    // Too large as a whole: no piece is read either.
    if (problem->line == 0) return Error(ErrorCode::INVALID_VALUE, describe(*problem, source));
    return salvage_pieces(text, source, describe(*problem, source));
  }
  return parse_document(std::get<toml::table>(root), std::move(source));
}

}  // namespace tunekit::tuning
