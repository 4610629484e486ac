// Knob settings as JSON.
#include "knob_json.hpp"

namespace tunekit::cli {

nlohmann::json knobs_json(const std::vector<graph::KnobSetting>& knobs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : knobs) {
    nlohmann::json j{{"knob_id", k.knob_id}};
    if (auto i = k.value.as_int()) {
      j["type"] = "int";
      j["value"] = *i;
    } else if (auto d = k.value.as_double()) {
      j["type"] = "double";
      j["value"] = *d;
    } else if (auto s = k.value.as_string()) {
      j["type"] = "string";
      j["value"] = *s;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace tunekit::cli
