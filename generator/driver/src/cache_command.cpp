// The `tunekit cache` subcommands. `show` and `merge` work on the file content
// alone; checks that need a kernel's schema (parameter values, stale ABI)
// apply only to keys whose schema is registered in this process, and the
// commands say so when none is. Every subcommand reads a cache as the loader
// does: the intact entries of a damaged file are used and each damaged part
// is a warning (exit 0); a file nothing can be recovered from exits 2.
#include "cache_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "descriptor_json.hpp"
#include "exit_codes.hpp"
#include "tunekit/core/hash.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/deployment_profile.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::cli {
namespace {

struct CacheCommandOptions {
  std::string cache;  // empty: the default cache path
  bool json = false;
  std::vector<std::string> sources;
  bool keep_existing = false;
  bool stale_abi = false;
  bool execution_mismatch = false;
  std::uint32_t threads = 0;
  std::string output;
  std::string input;
  int priority = 0;
  // selection
  std::string library;
  std::vector<std::string> kernels;
  std::vector<std::string> implementations;
  std::vector<std::string> element_types;
  // selector
  std::string selector_arch;
  std::string selector_vendor;
  std::optional<std::uint32_t> selector_family;
  std::vector<std::uint32_t> selector_models;
  std::optional<std::uint32_t> selector_stepping;
  std::string selector_uarch;
  std::vector<std::string> required_features;
  std::vector<std::string> excluded_features;
  std::optional<std::uint32_t> min_threads;
  std::optional<std::uint32_t> max_threads;
};

// Messages quote paths and arguments, which may be any bytes: printed as UTF-8.
int fail(std::string_view command, int code, const std::string& message) {
  std::cerr << core::replace_invalid_utf8(fmt::format("tunekit cache {}: {}\n", command, message));
  return code;
}

// The cache path of the options, or the default; nullopt after printing why not.
std::optional<std::filesystem::path> cache_path(const CacheCommandOptions& o, std::string_view command) {
  if (!o.cache.empty()) return std::filesystem::path(o.cache);
  Result<std::filesystem::path> path = tuning::default_cache_path();
  if (!path.ok()) {
    fail(command, kBadInput, path.error().message());
    return std::nullopt;
  }
  return *path;
}

bool any_schema_registered() { return !tuning::KernelTuningRegistry::global().snapshot()->keys().empty(); }

nlohmann::json entry_json(const tuning::ParsedKernelTuningCache::Item& item) {
  const tuning::KernelTuningCacheEntry& e = item.entry;
  const tuning::KernelTuningKey& key = e.parameters.key;
  nlohmann::json j;
  j["index"] = item.index;
  j["line"] = item.line;
  j["name"] = e.name;
  j["key"] = key.to_string();
  j["library"] = key.library;
  j["kernel"] = key.kernel;
  j["implementation"] = key.implementation;
  j["element_type"] = core::to_string(key.element_type);
  j["device"] = platform::to_string(key.device);
  j["tuning_abi"] = key.tuning_abi;
  j["library_version"] = e.library_version;
  j["tunekit_version"] = e.tunekit_version;
  j["report_digest"] = e.report_digest;
  j["execution_identity"] = platform::execution_identity_string(e.execution);
  j["execution_signature"] = core::to_hex(platform::execution_identity_signature(e.execution));
  j["processor"] = to_json(e.execution.processor);
  j["execution"] = to_json(e.execution);
  nlohmann::json parameters = nlohmann::json::object();
  for (const auto& [name, value] : e.parameters.values) parameters[name] = internal::value_to_json(value);
  j["parameters"] = parameters;
  return j;
}

// Reads one cache file through the library's reader, as the loader and the
// updater do: a damaged file yields its intact entries, and each damaged
// part is printed as a warning naming its position. Prints the problem and
// returns nullopt (exit 2) when the file is unreadable or nothing can be
// recovered (its header does not parse, or it is beyond the size limit).
std::optional<tuning::ParsedKernelTuningCache> read_cache(const std::filesystem::path& path, std::string_view command,
                                                          int& code) {
  Result<std::string> text = store::read_file(path);
  if (!text.ok()) {
    code = fail(command, kBadInput, text.error().message());
    return std::nullopt;
  }
  Result<tuning::ParsedKernelTuningCache> parsed = tuning::salvage_kernel_tuning_cache(*text, path.string());
  if (!parsed.ok()) {
    code = fail(command, kBadInput, parsed.error().message());
    return std::nullopt;
  }
  const std::string shown = core::replace_invalid_utf8(path.string());
  if (parsed->salvaged) {
    std::cerr << fmt::format("tunekit cache {}: warning: {} is not valid TOML as a whole ({}); recovered {} entries "
                             "piece by piece\n",
                             command, shown, parsed->document_error, parsed->entries.size());
  }
  for (const auto& bad : parsed->malformed) {
    std::cerr << fmt::format("tunekit cache {}: warning: skipping a damaged entry: {}\n", command, bad.describe(shown));
  }
  return std::move(*parsed);
}

int run_show(const CacheCommandOptions& o) {
  auto path = cache_path(o, "show");
  if (!path) return kBadInput;
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) {
    if (o.json) {
      std::cout << internal::json_text(
                       {{"path", path->string()}, {"status", "not_found"}, {"entries", nlohmann::json::array()}}, 2)
                << '\n';
    } else {
      fmt::print("no cache at {}\n", core::replace_invalid_utf8(path->string()));
    }
    return kSuccess;
  }
  int code = kSuccess;
  auto parsed = read_cache(*path, "show", code);
  if (!parsed) return code;
  if (o.json) {
    nlohmann::json out;
    out["path"] = path->string();
    out["status"] = "read";
    out["schema_version"] = parsed->schema_version;
    out["salvaged"] = parsed->salvaged;
    if (parsed->salvaged) out["document_error"] = parsed->document_error;
    out["entries"] = nlohmann::json::array();
    for (const auto& item : parsed->entries) out["entries"].push_back(entry_json(item));
    out["invalid"] = nlohmann::json::array();
    for (const auto& bad : parsed->malformed) {
      out["invalid"].push_back({{"index", bad.index}, {"line", bad.line}, {"column", bad.column}, {"field", bad.field},
                                {"message", bad.message}});
    }
    std::cout << internal::json_text(out, 2) << '\n';
  } else {
    const std::string shown = core::replace_invalid_utf8(path->string());
    fmt::print("cache {} (schema {}, {} entries)\n", shown, parsed->schema_version,
               parsed->entries.size() + parsed->malformed.size());
    for (const auto& item : parsed->entries) {
      const auto& e = item.entry;
      fmt::print("  [{}] {}  {}\n", item.index, e.parameters.key.to_string(), e.name);
      fmt::print("      execution   {}\n", platform::execution_identity_string(e.execution));
      fmt::print("      parameters  {}\n", e.parameters.to_string());
      fmt::print("      versions    library {}, tunekit {}; report {}\n", e.library_version, e.tunekit_version,
                 e.report_digest);
    }
    for (const auto& bad : parsed->malformed) {
      fmt::print("  [{}] damaged: {}\n", bad.index, bad.describe(shown));
    }
  }
  return kSuccess;
}

int update_exit_code(const tuning::KernelTuningCacheUpdateReport& report, std::string_view command) {
  for (const auto& r : report.rejected) fail(command, kBadInput, fmt::format("rejected {}: {}", r.key.key.to_string(), r.reason));
  for (const auto& d : report.dropped) std::cerr << fmt::format("tunekit cache {}: dropped: {}\n", command, d.reason);
  for (const auto& p : report.pruned) fmt::print("pruned {} ({})\n", p.key.key.to_string(), p.reason);
  if (report.status == tuning::KernelTuningCacheUpdateStatus::REJECTED) return kBadInput;
  if (!report.ok()) return fail(command, output_exit_code(report.error, kTuningFailure), report.summary());
  fmt::print("{}\n", report.summary());
  return kSuccess;
}

int run_merge(const CacheCommandOptions& o) {
  auto path = cache_path(o, "merge");
  if (!path) return kBadInput;
  std::vector<tuning::KernelTuningCacheEntry> entries;
  for (const std::string& source : o.sources) {
    int code = kSuccess;
    auto parsed = read_cache(source, "merge", code);
    if (!parsed) return code;
    for (auto& item : parsed->entries) entries.push_back(std::move(item.entry));
  }
  tuning::KernelTuningCacheOptions options;
  options.path = *path;
  options.allow_unregistered_keys = true;
  options.replace_existing = !o.keep_existing;
  return update_exit_code(tuning::MergeKernelTuningCacheEntries(entries, options), "merge");
}

int run_prune(const CacheCommandOptions& o) {
  if (!o.stale_abi && !o.execution_mismatch) {
    return fail("prune", kBadInput, "nothing to prune: give --stale-abi and/or --execution-mismatch");
  }
  auto path = cache_path(o, "prune");
  if (!path) return kBadInput;
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) {
    fmt::print("no cache at {}\n", core::replace_invalid_utf8(path->string()));
    return kSuccess;
  }
  if (o.stale_abi && !any_schema_registered()) {
    std::cerr << "tunekit cache prune: note: no kernel schemas are registered in this tool, so --stale-abi "
                 "cannot tell a stale ABI and prunes nothing\n";
  }
  tuning::KernelTuningCacheOptions options;
  options.path = *path;
  options.allow_unregistered_keys = true;
  options.prune_stale_abi = o.stale_abi;
  options.prune_execution_mismatch = o.execution_mismatch;
  if (o.execution_mismatch) {
    std::optional<std::uint32_t> requested;
    if (o.threads > 0) requested = o.threads;
    options.execution = platform::detect_execution_descriptor(requested);
  }
  return update_exit_code(tuning::MergeKernelTuningCacheEntries({}, options), "prune");
}

// Builds selection and selector from the flags; prints and returns false on a bad value.
bool build_export_inputs(const CacheCommandOptions& o, tuning::KernelCalibrationSelection& selection,
                         tuning::CpuSelector& selector, int& code) {
  if (!o.library.empty()) selection.library = o.library;
  selection.kernels = o.kernels;
  selection.implementations = o.implementations;
  for (const std::string& name : o.element_types) {
    auto type = core::parse_data_type(name);
    if (!type) {
      code = fail("export", kBadInput, fmt::format("--element-type: unknown data type '{}'", name));
      return false;
    }
    selection.element_types.push_back(*type);
  }
  if (!o.selector_arch.empty()) selector.architecture = o.selector_arch;
  if (!o.selector_vendor.empty()) selector.vendor = o.selector_vendor;
  selector.family = o.selector_family;
  selector.models = o.selector_models;
  selector.stepping = o.selector_stepping;
  if (!o.selector_uarch.empty()) selector.microarchitecture = o.selector_uarch;
  const auto features = [&](const std::vector<std::string>& names, std::string_view flag,
                            platform::CpuFeatureSet& set) {
    for (const std::string& name : names) {
      auto feature = platform::parse_cpu_feature(name);
      if (!feature) {
        code = fail("export", kBadInput, fmt::format("{}: unknown CPU feature '{}'", flag, name));
        return false;
      }
      set.insert(*feature);
    }
    return true;
  };
  if (!features(o.required_features, "--require-feature", selector.required_features)) return false;
  if (!features(o.excluded_features, "--exclude-feature", selector.excluded_features)) return false;
  selector.minimum_threads = o.min_threads;
  selector.maximum_threads = o.max_threads;
  if (Error e = tuning::validate_deployment_selector(selector); e.is_bad()) {
    code = fail("export", kBadInput, e.message());
    return false;
  }
  return true;
}

int run_export(const CacheCommandOptions& o) {
  auto path = cache_path(o, "export");
  if (!path) return kBadInput;
  tuning::KernelCalibrationSelection selection;
  tuning::CpuSelector selector;
  int code = kSuccess;
  if (!build_export_inputs(o, selection, selector, code)) return code;
  int read_code = kSuccess;
  if (!read_cache(*path, "export", read_code)) return read_code;
  tuning::KernelTuningCacheOptions options;
  options.path = *path;
  options.allow_unregistered_keys = true;
  auto profiles = tuning::ExportDeploymentProfiles(selection, selector, options, o.priority);
  if (!profiles.ok()) return fail("export", kBadInput, profiles.error().message());
  if (profiles->empty()) {
    return fail("export", kTuningFailure,
                fmt::format("{}: no selected entry was measured on a processor that {} accepts", path->string(),
                            selector.to_string()));
  }
  if (Error e = tuning::WriteDeploymentProfiles(o.output, *profiles); e.is_bad()) {
    return fail("export", output_exit_code(e, kTuningFailure), e.message());
  }
  fmt::print("exported {} profiles for {} to {}\n", profiles->size(), core::replace_invalid_utf8(selector.to_string()),
             core::replace_invalid_utf8(o.output));
  return kSuccess;
}

int run_import(const CacheCommandOptions& o) {
  auto profiles = tuning::ReadDeploymentProfiles(o.input);
  if (!profiles.ok()) return fail("import", kBadInput, profiles.error().message());
  auto& registry = tuning::KernelTuningRegistry::global();
  auto generation = registry.snapshot();
  std::vector<tuning::KernelTuningProfile> checked;
  std::size_t unchecked = 0;
  for (const auto& profile : *profiles) {
    if (generation->schema(profile.parameters.key)) {
      checked.push_back(profile);
    } else {
      ++unchecked;
    }
  }
  if (!checked.empty()) {
    if (Error e = tuning::ImportDeploymentProfiles(checked, registry); e.is_bad()) {
      return fail("import", kBadInput, fmt::format("{}: {}", o.input, e.message()));
    }
  }
  fmt::print("{}: {} profiles valid; {} registered against their kernel schemas", core::replace_invalid_utf8(o.input),
             profiles->size(), checked.size());
  if (unchecked > 0) fmt::print(", {} without a registered schema (checked for format and selector only)", unchecked);
  fmt::print("\n");
  return kSuccess;
}

void add_cache_option(CLI::App* command, CacheCommandOptions& o) {
  command->add_option("--cache", o.cache,
                      "Cache file (default: $TUNEKIT_CACHE_PATH, else $XDG_CACHE_HOME/tunekit/kernel_tuning.toml, "
                      "else ~/.cache/tunekit/kernel_tuning.toml)");
}

}  // namespace

void add_cache_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CacheCommandOptions>();
  CLI::App* cache = app.add_subcommand("cache", "Inspect and edit the calibration cache; export deployment profiles");
  cache->require_subcommand(1);

  CLI::App* show = cache->add_subcommand("show", "List every cache entry with its key, execution identity and parameters");
  show->add_flag("--json", o->json, "Print JSON instead of text");
  add_cache_option(show, *o);
  show->callback([o, &exit_code] { exit_code = run_show(*o); });

  CLI::App* merge = cache->add_subcommand("merge", "Merge other cache files into the cache (locked, atomic)");
  merge->add_option("sources", o->sources, "Cache files to merge")->required()->check(CLI::ExistingFile);
  merge->add_flag("--keep-existing", o->keep_existing, "Keep the cache's entry when a source has the same key");
  add_cache_option(merge, *o);
  merge->callback([o, &exit_code] { exit_code = run_merge(*o); });

  CLI::App* prune = cache->add_subcommand("prune", "Drop stale or foreign entries from the cache");
  prune->add_flag("--stale-abi", o->stale_abi, "Drop entries whose tuning ABI is not the registered one "
                                               "(needs kernel schemas registered in this tool)");
  prune->add_flag("--execution-mismatch", o->execution_mismatch,
                  "Drop entries measured on another processor, thread count or NUMA policy than this run's");
  prune->add_option("--threads", o->threads, "The run's thread limit for --execution-mismatch (0: none)")
      ->check(CLI::NonNegativeNumber);
  add_cache_option(prune, *o);
  prune->callback([o, &exit_code] { exit_code = run_prune(*o); });

  CLI::App* exp = cache->add_subcommand("export", "Write selected entries as deployment profiles for a processor selector");
  exp->add_option("-o,--output", o->output, "Deployment profile file to write")->required();
  exp->add_option("--library", o->library, "Only this kernel library");
  exp->add_option("--kernel", o->kernels, "Only these kernels")->delimiter(',');
  exp->add_option("--implementation", o->implementations, "Only these implementations")->delimiter(',');
  exp->add_option("--element-type", o->element_types, "Only these element types")->delimiter(',');
  exp->add_option("--selector-arch", o->selector_arch, "Selector: architecture (x86_64, aarch64)");
  exp->add_option("--selector-vendor", o->selector_vendor, "Selector: vendor (AMD, Intel, ARM)");
  exp->add_option("--selector-family", o->selector_family, "Selector: family");
  exp->add_option("--selector-model,--selector-models", o->selector_models, "Selector: models (repeat or comma-separate)")
      ->delimiter(',');
  exp->add_option("--selector-stepping", o->selector_stepping, "Selector: stepping (with exactly one model)");
  exp->add_option("--selector-uarch", o->selector_uarch, "Selector: microarchitecture (zen4, golden_cove)");
  exp->add_option("--require-feature", o->required_features, "Selector: required CPU features")->delimiter(',');
  exp->add_option("--exclude-feature", o->excluded_features, "Selector: excluded CPU features")->delimiter(',');
  exp->add_option("--min-threads", o->min_threads, "Selector: minimum effective threads");
  exp->add_option("--max-threads", o->max_threads, "Selector: maximum effective threads");
  exp->add_option("--priority", o->priority, "Priority of the exported profiles");
  add_cache_option(exp, *o);
  exp->callback([o, &exit_code] { exit_code = run_export(*o); });

  CLI::App* imp = cache->add_subcommand("import", "Validate a deployment profile file and register it (all or none)");
  imp->add_option("file", o->input, "Deployment profile file")->required();
  imp->callback([o, &exit_code] { exit_code = run_import(*o); });
}

}  // namespace tunekit::cli
