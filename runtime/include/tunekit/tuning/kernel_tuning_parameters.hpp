// A named set of scalar tuning values for one key: the portable exchange form
// between profiles, caches, calibration and typed kernel configurations.
// Values are kept sorted by name so that diagnostics and files are stable.
#pragma once

#include <map>
#include <string>

#include "tunekit/core/value.hpp"
#include "tunekit/tuning/kernel_tuning_key.hpp"

namespace tunekit::tuning {

using TuningValue = core::Value;

struct KernelTuningParameters {
  KernelTuningKey key;
  std::map<std::string, TuningValue> values;

  // "algorithm.tile_m=64, parallel.minimum_elements=1048576"
  std::string to_string() const;
  friend bool operator==(const KernelTuningParameters&, const KernelTuningParameters&) = default;
};

}  // namespace tunekit::tuning
