// The one conversion of a tunekit Value to JSON, shared by every JSON writer
// (calibration reports, `tunekit cache show`, override files, the CLI). An
// internal header: it brings in nlohmann/json, so it is never installed and
// never included by a public header.
#pragma once

#include <nlohmann/json.hpp>

#include "tunekit/core/value.hpp"

namespace tunekit::internal {

// A JSON scalar of the value's own type: 64, 0.5, true, "text".
inline nlohmann::json value_to_json(const core::Value& value) {
  switch (value.type()) {
    case core::ValueType::INT64: return *value.as_int();
    case core::ValueType::DOUBLE: return *value.as_double();
    case core::ValueType::BOOL: return *value.as_bool();
    case core::ValueType::STRING: return *value.as_string();
  }
  return nullptr;
}

}  // namespace tunekit::internal
