// Fuzz target of the calibration cache reader. On any bytes: the strict and
// salvaging parsers return instead of crashing, and the strict one refuses
// every text beyond the TOML limits; what they accept formats back into text
// that parses to the same entries; and a load (which salvages, as every
// reader of the cache does) publishes nothing unless an entry validates, and
// then exactly the validated entries, whole, in one generation. What was
// read and the load report make the JSON that `tunekit cache show --json`
// prints (json_output.hpp). A broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_output.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/store/toml_limits.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::tuning;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

KernelTuningKey fuzz_key() { return {"tunekit_test", "Gemm", "blocked_avx2", DataType::FLOAT, platform::DeviceKind::CPU, 3}; }

KernelTuningSchema fuzz_schema() {
  std::vector<ParameterSpec> specs(4);
  specs[0].name = "algorithm.tile_k";
  specs[0].type = ValueType::INT64;
  specs[0].portable_default = 256;
  specs[0].minimum = 1;
  specs[0].maximum = 4096;
  specs[1].name = "algorithm.pack_ratio";
  specs[1].type = ValueType::DOUBLE;
  specs[1].portable_default = 0.5;
  specs[1].minimum = 0.0;
  specs[1].maximum = 1.0;
  specs[2].name = "algorithm.prepack";
  specs[2].type = ValueType::BOOL;
  specs[2].portable_default = true;
  specs[3].name = "algorithm.kind";
  specs[3].type = ValueType::STRING;
  specs[3].portable_default = "blocked";
  specs[3].allowed = {"blocked", "packed", "naive"};
  return KernelTuningSchema(fuzz_key(), std::move(specs));
}

platform::CpuExecutionDescriptor fuzz_execution() {
  using F = platform::CpuFeature;
  platform::CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = "AMD";
  e.processor.family = 25;
  e.processor.model = 1;
  e.processor.stepping = 1;
  e.processor.microarchitecture = "zen3";
  e.processor.features = {F::SSE2, F::AVX, F::AVX2, F::FMA};
  e.effective_threads = 2;
  e.numa_policy = {platform::NumaPolicyKind::DEFAULT, {}};
  return e;
}

void check_round_trip(const ParsedKernelTuningCache& parsed) {
  std::vector<KernelTuningCacheEntry> entries;
  for (const auto& item : parsed.entries) entries.push_back(item.entry);
  const std::string text = format_kernel_tuning_cache(entries);
  auto again = parse_kernel_tuning_cache(text, "round-trip");
  require(again.ok());
  require(again->malformed.empty());
  require(again->entries.size() == entries.size());
  std::vector<KernelTuningCacheEntry> back;
  for (const auto& item : again->entries) back.push_back(item.entry);
  require(format_kernel_tuning_cache(back) == text);
}

// What was read, as `tunekit cache show --json` prints it; or the error.
void check_shown(const Result<ParsedKernelTuningCache>& parsed) {
  if (!parsed.ok()) {
    fuzz::check_message(parsed.error().message());
    fuzz::check_json_output({{"error", parsed.error().message()}});
    return;
  }
  nlohmann::json out{
      {"path", parsed->source}, {"salvaged", parsed->salvaged}, {"document_error", parsed->document_error}};
  fuzz::check_message(parsed->document_error);
  out["entries"] = nlohmann::json::array();
  for (const auto& item : parsed->entries) {
    const KernelTuningCacheEntry& e = item.entry;
    const platform::CpuDescriptor& cpu = e.execution.processor;
    nlohmann::json parameters = nlohmann::json::object();
    for (const auto& [name, value] : e.parameters.values) parameters[name] = internal::value_to_json(value);
    out["entries"].push_back({{"name", e.name},
                              {"key", e.parameters.key.to_string()},
                              {"library_version", e.library_version},
                              {"tunekit_version", e.tunekit_version},
                              {"report_digest", e.report_digest},
                              {"processor", {{"architecture", cpu.architecture},
                                             {"vendor", cpu.vendor},
                                             {"microarchitecture", cpu.microarchitecture},
                                             {"model_name", cpu.model_name},
                                             {"features", cpu.features.to_string()}}},
                              {"execution", platform::execution_identity_string(e.execution)},
                              {"parameters", std::move(parameters)}});
  }
  out["invalid"] = nlohmann::json::array();
  for (const KernelTuningCacheEntryError& bad : parsed->malformed) {
    fuzz::check_message(bad.message);
    fuzz::check_message(bad.describe("fuzz"));
    out["invalid"].push_back({{"field", bad.field}, {"message", bad.message}, {"line", bad.line}});
  }
  fuzz::check_json_output(out);
}

void check_report(const KernelTuningCacheLoadReport& report) {
  fuzz::check_message(report.file_reason);
  fuzz::check_message(report.salvage_reason);
  fuzz::check_message(report.summary());
  nlohmann::json entries = nlohmann::json::array();
  for (const KernelTuningCacheEntryReport& entry : report.entries) {
    fuzz::check_message(entry.reason);
    entries.push_back({{"index", entry.index},
                       {"name", entry.name},
                       {"status", to_string(entry.status)},
                       {"field", entry.field},
                       {"reason", entry.reason}});
  }
  fuzz::check_json_output({{"path", report.path.string()},
                           {"file_reason", report.file_reason},
                           {"salvage_reason", report.salvage_reason},
                           {"summary", report.summary()},
                           {"entries", std::move(entries)}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool quiet = [] {
    log::set_level(log::Level::OFF);
    return true;
  }();
  (void)quiet;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::check_same_replacement(text);

  auto strict = parse_kernel_tuning_cache(text, "fuzz");
  check_shown(strict);
  if (store::find_toml_limit_violation(text)) require(!strict.ok());
  if (strict.ok()) check_round_trip(*strict);
  auto salvaged = salvage_kernel_tuning_cache(text, "fuzz");
  check_shown(salvaged);
  if (salvaged.ok()) check_round_trip(*salvaged);
  if (strict.ok()) require(salvaged.ok() && !salvaged->salvaged);

  KernelTuningRegistry registry;
  require(registry.try_register_schema(fuzz_schema()).is_good());
  const std::uint64_t before = registry.generation_number();
  KernelTuningCacheOptions options;
  options.registry = &registry;
  options.execution = fuzz_execution();
  const KernelTuningCacheLoadReport report = LoadKernelTuningCacheText(text, "fuzz", {}, options);
  check_report(report);

  const auto loaded = report.with_status(KernelTuningCacheEntryStatus::LOADED);
  if (loaded.empty()) {
    require(registry.generation_number() == before);
    require(!report.published_generation);
    return 0;
  }
  require(salvaged.ok());
  require(registry.generation_number() == before + 1);
  const auto published = registry.snapshot()->calibrated_profiles(fuzz_key());
  require(published.size() == loaded.size());  // every loaded entry has the one key and execution here
  for (const KernelTuningCacheEntryReport* entry : loaded) {
    const KernelTuningCacheEntry* source = nullptr;
    for (const auto& item : salvaged->entries) {
      if (item.index == entry->index) source = &item.entry;
    }
    require(source != nullptr);
    bool found = false;
    for (const CalibratedKernelProfile& p : published) found = found || p.parameters == source->parameters;
    require(found);
  }
  return 0;
}
