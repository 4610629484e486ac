// Promotion of measured values to portable defaults: the values of measured
// profiles become the defaults of a tuning spec, rewritten in place in the
// spec text so that comments, order and formatting stay as they were and the
// diff shows only the values.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/tuning_profile.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::tuning {

struct DefaultChange {
  std::string implementation;  // TuningSpecImplementation::name
  std::string parameter;       // "parallel.minimum_elements"
  core::Value value;
  std::string origin;          // where the value comes from (a profile's name), for messages
};

// The changes that promote `profiles` into `spec`: the values of
// `parameters` (every parameter of every profile when empty), sorted by
// implementation and parameter. INVALID_VALUE when a profile's key is not
// declared by the spec (another library, kernel, implementation, element type,
// device or tuning ABI), a profile names a parameter the spec does not
// declare, a named parameter is in no profile, or two profiles of one
// implementation give one parameter different values.
Result<std::vector<DefaultChange>> defaults_from_profiles(const TuningSpec& spec,
                                                          std::span<const KernelTuningProfile> profiles,
                                                          const std::vector<std::string>& parameters = {});

// `text` must be the text `spec` was parsed from. Returns the text with only
// the bytes of each changed default replaced by the new value's TOML form.
// Every new default is first checked against its rules and, with the other
// defaults, against the constraints: INVALID_VALUE naming the parameter and
// value when one is refused, and then nothing is rewritten.
Result<std::string> rewrite_spec_defaults(std::string_view text, const TuningSpec& spec,
                                          const std::vector<DefaultChange>& changes);

}  // namespace tunekit::tuning
