// Selection semantics: AND across fields, OR within one field.
#include "tunekit/tuning/kernel_calibration_selection.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::tuning {
namespace {

template <typename T>
bool accepts(const std::vector<T>& allowed, const T& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

bool KernelCalibrationSelection::selects(const KernelTuningKey& key) const {
  if (library && *library != key.library) return false;
  if (key.device != device.value_or(platform::DeviceKind::CPU)) return false;
  return accepts(kernels, key.kernel) && accepts(implementations, key.implementation) &&
         accepts(element_types, key.element_type);
}

std::string KernelCalibrationSelection::to_string() const {
  std::vector<std::string> parts;
  if (library) parts.push_back("library=" + *library);
  if (!kernels.empty()) parts.push_back(fmt::format("kernels=[{}]", fmt::join(kernels, ",")));
  if (!implementations.empty()) parts.push_back(fmt::format("implementations=[{}]", fmt::join(implementations, ",")));
  if (!element_types.empty()) {
    std::vector<std::string_view> names;
    for (DataType t : element_types) names.push_back(core::to_string(t));
    parts.push_back(fmt::format("element_types=[{}]", fmt::join(names, ",")));
  }
  if (device) parts.push_back(fmt::format("device={}", platform::to_string(*device)));
  if (only_missing) parts.push_back("only_missing");
  return parts.empty() ? std::string("all") : fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace tunekit::tuning
