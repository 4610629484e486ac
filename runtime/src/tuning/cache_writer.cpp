// Writing the calibration cache: TOML built by hand so that field order,
// entry order (by complete key) and float text are fixed, and equal inputs
// give byte-identical files.
#include <fmt/format.h>

#include <algorithm>

#include "toml_support.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"

namespace tunekit::tuning {
namespace {

using toml_support::quote;

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

}  // namespace

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

Error check_writable(const KernelTuningCacheEntry& entry) {
  using core::is_valid_utf8;
  auto unwritable = [](std::string_view field, std::string_view problem) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: {}", field, problem));
  };
  const KernelTuningKey& key = entry.parameters.key;
  if (key.library.empty()) return unwritable("library", "must not be empty");
  if (key.kernel.empty()) return unwritable("kernel", "must not be empty");
  if (key.implementation.empty()) return unwritable("implementation", "must not be empty");
  if (entry.execution.effective_threads < 1) {
    return unwritable("execution.effective_threads",
                      fmt::format("must be at least 1, not {}", entry.execution.effective_threads));
  }
  if (entry.execution.requested_threads && *entry.execution.requested_threads < 1) {
    return unwritable("execution.requested_threads",
                      fmt::format("must be at least 1, not {}", *entry.execution.requested_threads));
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
    if (!is_valid_utf8(*text)) return unwritable(field, "not valid UTF-8");
  }
  for (const auto& [name, value] : entry.parameters.values) {
    if (!is_valid_utf8(name)) return unwritable("parameters", "a name is not valid UTF-8");
    if (const std::string* text = value.as_string(); text && !is_valid_utf8(*text)) {
      return unwritable("parameters." + name, "not valid UTF-8");
    }
  }
  return Error::ok();
}

}  // namespace tunekit::tuning
