// The JSON form of one autotune candidate that `tune --json` prints, and its
// reading back: the parent of `tune --isolate` reads each child's candidate
// from that same output, so both sides use this one mapping.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/autotune_config.hpp"

namespace tunekit::cli {

nlohmann::json candidate_json(const graph::AutotuneResult& result);

// The measured fields of `json` (a candidate_json object) into `result`,
// whose identity (engine id, name, knobs) the caller already knows; a field
// missing or of the wrong type is INVALID_VALUE naming it.
Error read_candidate_json(const nlohmann::json& json, graph::AutotuneResult& result);

}  // namespace tunekit::cli
