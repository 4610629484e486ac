// Fuzz target of the deployment-profile reader (`tunekit cache import`). On
// any bytes: the reader returns instead of crashing, and refuses every text
// beyond the TOML limits; what it accepts has only explicit, valid selectors,
// formats back into text that reads to the same profiles, and imports into a
// registry all or none, in at most one generation. The profiles read and
// every error make JSON as the tool's outputs do (json_output.hpp). A broken
// invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_output.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/store/toml_limits.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::tuning;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

// The key of the seed corpus, so that imports get past the schema check.
KernelTuningSchema fuzz_schema() {
  std::vector<ParameterSpec> specs(2);
  specs[0].name = "algorithm.tile_k";
  specs[0].type = ValueType::INT64;
  specs[0].portable_default = 256;
  specs[0].minimum = 1;
  specs[0].maximum = 4096;
  specs[1].name = "algorithm.kind";
  specs[1].type = ValueType::STRING;
  specs[1].portable_default = "blocked";
  specs[1].allowed = {"blocked", "packed"};
  return KernelTuningSchema({"tunekit_test", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 1},
                            std::move(specs));
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
  Result<std::vector<KernelTuningProfile>> profiles = parse_deployment_profiles(text, "fuzz.toml");
  if (store::find_toml_limit_violation(text)) require(!profiles.ok());
  if (!profiles.ok()) {
    require(profiles.error().message().rfind("fuzz.toml", 0) == 0);
    fuzz::check_message(profiles.error().message());
    return 0;
  }
  nlohmann::json shown = nlohmann::json::array();
  for (const KernelTuningProfile& profile : *profiles) {
    require(validate_deployment_selector(profile.selector).is_good());
    nlohmann::json parameters = nlohmann::json::object();
    for (const auto& [name, value] : profile.parameters.values) parameters[name] = internal::value_to_json(value);
    shown.push_back({{"name", profile.name},
                     {"key", profile.parameters.key.to_string()},
                     {"selector", profile.selector.to_string()},
                     {"parameters", std::move(parameters)}});
  }
  fuzz::check_json_output(shown);

  // Compared as text: a NaN parameter reads back as NaN, which never equals itself.
  const std::string formatted = format_deployment_profiles(*profiles);
  Result<std::vector<KernelTuningProfile>> again = parse_deployment_profiles(formatted, "round-trip");
  require(again.ok());
  require(again->size() == profiles->size());
  require(format_deployment_profiles(*again) == formatted);

  KernelTuningRegistry registry;
  require(registry.try_register_schema(fuzz_schema()).is_good());
  const std::uint64_t before = registry.generation_number();
  const Error imported = ImportDeploymentProfiles(*profiles, registry);
  fuzz::check_message(imported.message());
  const std::uint64_t after = registry.generation_number();
  if (imported.is_bad()) {
    require(after == before);
  } else if (!profiles->empty()) {
    require(after == before + 1);
    for (const KernelTuningProfile& profile : *profiles) {
      require(registry.snapshot()->has_profile_named(profile.name) || profile.name.empty());
    }
  } else {
    require(after <= before + 1);
  }
  return 0;
}
