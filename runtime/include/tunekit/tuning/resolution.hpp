// The outcome of resolving one key for one execution: the complete parameter
// set, where it came from, and (when asked) why every other candidate lost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::tuning {

struct RejectedCandidate {
  std::string profile;
  ResolutionSource source = ResolutionSource::PORTABLE_DEFAULT;
  std::string reason;  // "vendor Intel != AMD", "outranked by <profile>", ...
};

struct Resolution {
  KernelTuningParameters parameters;  // every parameter of the schema
  ResolutionSource source = ResolutionSource::PORTABLE_DEFAULT;
  std::string profile_name;  // the winning profile; empty for portable defaults
  // With SESSION_OVERRIDE: the source the overrides were applied on top of.
  std::optional<ResolutionSource> base_source;
  std::uint64_t generation = 0;
  std::vector<RejectedCandidate> rejected;  // filled only by explain()

  // Multi-line readable account: source, profile, every value, rejections.
  std::string to_string() const;
};

}  // namespace tunekit::tuning
