// Which keys a calibration run or a cache load applies to. Every non-empty
// field is a filter; fields combine with AND, the values of one field with
// OR. An empty selection selects every key of the active device.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tunekit/tuning/kernel_tuning_key.hpp"

namespace tunekit::tuning {

struct KernelCalibrationSelection {
  std::optional<std::string> library;
  std::vector<std::string> kernels;
  std::vector<std::string> implementations;
  std::vector<DataType> element_types;
  std::optional<platform::DeviceKind> device;  // unset: the active device (the CPU)
  // Calibration: skip keys that already have a compatible calibrated profile.
  bool only_missing = false;

  bool selects(const KernelTuningKey& key) const;
  // "library=tunekit_cpu kernels=[Abs,Not] element_types=[float]"; "all" when empty.
  std::string to_string() const;
};

}  // namespace tunekit::tuning
