// The one JSON form of knob settings, {"knob_id", "type", "value"}, shared by
// the override writer and the CLI (`tunekit tune`, `tunekit overrides`) so
// that what they print is what the files hold. Internal, like value_json.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "tunekit/graph/knob.hpp"
#include "tunekit/internal/value_json.hpp"

namespace tunekit::internal {

// Override files know int, double and string knobs (as hipDNN's reader
// does); a bool is written as the int 0 or 1.
inline nlohmann::json knob_setting_to_json(const graph::KnobSetting& knob) {
  std::string_view type = "int";
  nlohmann::json value = value_to_json(knob.value);
  switch (knob.value.type()) {
    case core::ValueType::INT64: break;
    case core::ValueType::DOUBLE: type = "double"; break;
    case core::ValueType::STRING: type = "string"; break;
    case core::ValueType::BOOL: value = *knob.value.as_bool() ? 1 : 0; break;
  }
  return {{"knob_id", knob.knob_id}, {"type", type}, {"value", std::move(value)}};
}

inline nlohmann::json knob_settings_to_json(const std::vector<graph::KnobSetting>& knobs) {
  nlohmann::json out = nlohmann::json::array();
  for (const graph::KnobSetting& knob : knobs) out.push_back(knob_setting_to_json(knob));
  return out;
}

}  // namespace tunekit::internal
