// JSON form of knob settings shared by `tunekit tune` and `tunekit overrides`:
// [{"knob_id", "type" (int|double|string), "value"}], as the override files
// write them.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "tunekit/graph/knob.hpp"

namespace tunekit::cli {

nlohmann::json knobs_json(const std::vector<graph::KnobSetting>& knobs);

}  // namespace tunekit::cli
