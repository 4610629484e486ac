// The deployment profile file: a schema version and [[profiles]], each with
// its key, priority, selector and parameter values. Written by hand in a
// fixed order; read strictly (one bad profile rejects the file, since import
// is all or nothing).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "toml_support.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/internal/toml_parse.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::tuning {
namespace {

using toml_support::FieldReader;
using toml_support::quote;

std::string feature_list(const platform::CpuFeatureSet& features) {
  std::vector<std::string> names;
  for (const std::string& name : features.names()) names.push_back(quote(name));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

void write_profile(std::string& out, const KernelTuningProfile& profile) {
  const KernelTuningKey& key = profile.parameters.key;
  const CpuSelector& s = profile.selector;
  out += "\n[[profiles]]\n";
  out += fmt::format("name = {}\n", quote(profile.name));
  out += fmt::format("library = {}\n", quote(key.library));
  out += fmt::format("kernel = {}\n", quote(key.kernel));
  out += fmt::format("implementation = {}\n", quote(key.implementation));
  out += fmt::format("element_type = {}\n", quote(core::to_string(key.element_type)));
  out += fmt::format("device = {}\n", quote(platform::to_string(key.device)));
  out += fmt::format("tuning_abi = {}\n", key.tuning_abi);
  out += fmt::format("priority = {}\n", profile.priority);
  out += "\n[profiles.selector]\n";
  if (s.architecture) out += fmt::format("architecture = {}\n", quote(*s.architecture));
  if (s.vendor) out += fmt::format("vendor = {}\n", quote(*s.vendor));
  if (s.family) out += fmt::format("family = {}\n", *s.family);
  if (!s.models.empty()) out += fmt::format("models = [{}]\n", fmt::join(s.models, ", "));
  if (s.stepping) out += fmt::format("stepping = {}\n", *s.stepping);
  if (s.microarchitecture) out += fmt::format("microarchitecture = {}\n", quote(*s.microarchitecture));
  if (!s.required_features.empty()) out += fmt::format("required_features = {}\n", feature_list(s.required_features));
  if (!s.excluded_features.empty()) out += fmt::format("excluded_features = {}\n", feature_list(s.excluded_features));
  if (s.minimum_threads) out += fmt::format("minimum_threads = {}\n", *s.minimum_threads);
  if (s.maximum_threads) out += fmt::format("maximum_threads = {}\n", *s.maximum_threads);
  out += "\n[profiles.parameters]\n";
  for (const auto& [name, value] : profile.parameters.values) {
    out += fmt::format("{} = {}\n", toml_support::format_key(name), toml_support::format_value(value));
  }
}

std::optional<std::vector<std::uint32_t>> models(FieldReader& r, const toml::table& t, const std::string& path) {
  const toml::node* node = t.get("models");
  if (!node || r.failed()) return std::vector<std::uint32_t>{};
  const toml::array* array = node->as_array();
  if (!array) {
    r.fail(node, path + ".models", "expected an array of integers");
    return std::nullopt;
  }
  std::vector<std::uint32_t> values;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    const auto* integer = element.as_integer();
    if (!integer || integer->get() < 0 || integer->get() > std::numeric_limits<std::uint32_t>::max()) {
      r.fail(&element, fmt::format("{}.models[{}]", path, i), "expected an integer in 0..4294967295");
      return std::nullopt;
    }
    values.push_back(static_cast<std::uint32_t>(integer->get()));
  }
  return values;
}

std::optional<KernelTuningProfile> read_profile(FieldReader& r, const toml::table& t, const std::string& path) {
  r.only_keys(t, path, {"name", "library", "kernel", "implementation", "element_type", "device", "tuning_abi",
                        "priority", "selector", "parameters"});
  KernelTuningProfile profile;
  profile.name = r.string(t, path, "name", true).value_or("");
  KernelTuningKey& key = profile.parameters.key;
  key.library = r.string(t, path, "library", true, true).value_or("");
  key.kernel = r.string(t, path, "kernel", true, true).value_or("");
  key.implementation = r.string(t, path, "implementation", true, true).value_or("");
  key.element_type = r.data_type(t, path, "element_type").value_or(DataType::FLOAT);
  key.device = r.device(t, path, "device").value_or(platform::DeviceKind::CPU);
  key.tuning_abi = r.uint32(t, path, "tuning_abi", true).value_or(0);
  profile.priority = static_cast<int>(r.integer(t, path, "priority", false, std::numeric_limits<int>::min(),
                                                std::numeric_limits<int>::max())
                                          .value_or(0));
  if (const toml::table* s = r.table(t, path, "selector", true)) {
    const std::string sp = path + ".selector";
    r.only_keys(*s, sp, {"architecture", "vendor", "family", "models", "stepping", "microarchitecture",
                         "required_features", "excluded_features", "minimum_threads", "maximum_threads"});
    CpuSelector& selector = profile.selector;
    selector.architecture = r.string(*s, sp, "architecture", false, true);
    selector.vendor = r.string(*s, sp, "vendor", false, true);
    selector.family = r.uint32(*s, sp, "family", false);
    selector.models = models(r, *s, sp).value_or(std::vector<std::uint32_t>{});
    selector.stepping = r.uint32(*s, sp, "stepping", false);
    selector.microarchitecture = r.string(*s, sp, "microarchitecture", false, true);
    selector.required_features = r.features(*s, sp, "required_features", false).value_or(platform::CpuFeatureSet{});
    selector.excluded_features = r.features(*s, sp, "excluded_features", false).value_or(platform::CpuFeatureSet{});
    selector.minimum_threads = r.uint32(*s, sp, "minimum_threads", false, 1);
    selector.maximum_threads = r.uint32(*s, sp, "maximum_threads", false, 1);
    if (!r.failed()) {
      if (Error e = validate_deployment_selector(selector); e.is_bad()) r.fail(s, sp, e.message());
    }
  }
  if (auto values = r.values(t, path, "parameters", true)) profile.parameters.values = std::move(*values);
  if (r.failed()) return std::nullopt;
  return profile;
}

Error problem_error(const std::string& source, const toml_support::Problem& p) {
  return {ErrorCode::INVALID_VALUE, p.line > 0 ? fmt::format("{}:{}:{}: {}: {}", source, p.line, p.column, p.field, p.message)
                                               : fmt::format("{}: {}: {}", source, p.field, p.message)};
}

}  // namespace

std::string format_deployment_profiles(std::span<const KernelTuningProfile> profiles) {
  std::vector<const KernelTuningProfile*> sorted;
  for (const KernelTuningProfile& p : profiles) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    if (a->parameters.key != b->parameters.key) return a->parameters.key < b->parameters.key;
    return a->name < b->name;
  });
  std::string out =
      "# tunekit processor profiles: values for the processors each selector names, registered all or none\n"
      "# (`tunekit cache import`, `tunekit gen-profiles`; written by `tunekit cache export` and `tunekit calibrate`).\n";
  out += fmt::format("schema_version = {}\n", kDeploymentProfileSchemaVersion);
  for (const KernelTuningProfile* p : sorted) write_profile(out, *p);
  return out;
}

Result<std::vector<KernelTuningProfile>> parse_deployment_profiles(std::string_view text, std::string source) {
  Result<toml::table> parsed = internal::parse_toml_document(text, source);
  if (!parsed.ok()) return parsed.error();
  const toml::table& root = *parsed;
  FieldReader r;
  r.only_keys(root, "", {"schema_version", "profiles"});
  auto version = r.integer(root, "", "schema_version", true, 1, std::numeric_limits<std::int64_t>::max());
  if (r.failed()) return problem_error(source, *r.problem());
  if (*version > kDeploymentProfileSchemaVersion) {
    return Error(ErrorCode::NOT_SUPPORTED, fmt::format("{}: schema_version {} is newer than this tunekit reads ({})",
                                                       source, *version, kDeploymentProfileSchemaVersion));
  }
  std::vector<KernelTuningProfile> profiles;
  const toml::node* node = root.get("profiles");
  if (!node) return profiles;
  const toml::array* array = node->as_array();
  if (!array) return problem_error(source, {"profiles", "expected an array of tables", node->source().begin.line, node->source().begin.column});
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string path = fmt::format("profiles[{}]", i);
    const toml::table* table = array->get(i)->as_table();
    if (!table) {
      r.fail(array->get(i), path, "expected a table");
      return problem_error(source, *r.problem());
    }
    auto profile = read_profile(r, *table, path);
    if (!profile) return problem_error(source, *r.problem());
    profiles.push_back(std::move(*profile));
  }
  return profiles;
}

Error WriteDeploymentProfiles(const std::filesystem::path& path, std::span<const KernelTuningProfile> profiles) {
  store::AtomicWriteOptions options;
  options.create_parent_folders = true;
  return store::write_file_atomically(path, format_deployment_profiles(profiles), options);
}

Result<std::vector<KernelTuningProfile>> ReadDeploymentProfiles(const std::filesystem::path& path) {
  Result<std::string> text = store::read_file(path);
  if (!text.ok()) return text.error();
  return parse_deployment_profiles(*text, path.string());
}

Result<std::vector<std::filesystem::path>> ListProfileFiles(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->path().extension() == ".toml" && it->is_regular_file(type_ec)) files.push_back(it->path());
  }
  if (ec) {
    return Error(ErrorCode::IO_ERROR, fmt::format("{}: cannot list the folder: {}", folder.string(), ec.message()));
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
  return files;
}

}  // namespace tunekit::tuning
