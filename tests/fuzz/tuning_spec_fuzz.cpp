// Fuzz target of the tuning spec reader. On any bytes the reader returns
// instead of crashing, and an error names the source. A spec that parses has
// a valid schema for every key, every default's text range lies inside the
// text, and rewriting every default with its own value gives a text that
// parses again to the same defaults. The spec's names, descriptions and
// defaults and every error make JSON as the tool's outputs do
// (json_output.hpp). A broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_output.hpp"
#include "tunekit/core/log.hpp"
#include "tunekit/internal/value_json.hpp"
#include "tunekit/tuning/spec_promotion.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tunekit;
  log::set_level(log::Level::OFF);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::check_same_replacement(text);
  Result<tuning::TuningSpec> spec = tuning::parse_tuning_spec(text, "fuzz.toml");
  if (!spec.ok()) {
    require(spec.error().is_bad());
    require(spec.error().message().find("fuzz.toml") != std::string::npos);
    fuzz::check_message(spec.error().message());
    return 0;
  }
  for (const tuning::KernelTuningSchema& schema : spec->schemas()) require(schema.validate_schema().is_good());
  nlohmann::json shown{{"library", spec->library}, {"library_version", spec->library_version},
                       {"namespace", spec->cpp_namespace}, {"implementations", nlohmann::json::array()}};
  for (const tuning::TuningSpecImplementation& implementation : spec->implementations) {
    nlohmann::json parameters = nlohmann::json::array();
    for (const tuning::TuningSpecParameter& parameter : implementation.parameters) {
      parameters.push_back({{"name", parameter.spec.name},
                            {"member", parameter.member},
                            {"default", internal::value_to_json(parameter.spec.portable_default)},
                            {"allowed", parameter.spec.allowed},
                            {"description", parameter.spec.description}});
    }
    shown["implementations"].push_back({{"name", implementation.name},
                                        {"implementation", implementation.implementation},
                                        {"description", implementation.description},
                                        {"parameters", std::move(parameters)}});
  }
  fuzz::check_json_output(shown);
  std::vector<tuning::DefaultChange> same;
  for (const tuning::TuningSpecImplementation& implementation : spec->implementations) {
    for (const tuning::TuningSpecParameter& parameter : implementation.parameters) {
      require(parameter.default_text.offset + parameter.default_text.length <= text.size());
      same.push_back({implementation.name, parameter.spec.name, parameter.spec.portable_default, "fuzz"});
    }
  }
  Result<std::string> rewritten = tuning::rewrite_spec_defaults(text, *spec, same);
  require(rewritten.ok());
  Result<tuning::TuningSpec> again = tuning::parse_tuning_spec(*rewritten, "fuzz.toml");
  require(again.ok());
  require(again->schemas() == spec->schemas());
  return 0;
}
