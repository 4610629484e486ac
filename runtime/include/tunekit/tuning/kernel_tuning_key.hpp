// The scope of a set of thresholds: one implementation of one kernel for one
// element type on one device kind, under one tuning ABI. Element types never
// fall back to each other: FLOAT and FLOAT16 are different keys.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "tunekit/core/data_type.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::tuning {

struct KernelTuningKey {
  std::string library;         // "tunekit_cpu"
  std::string kernel;          // "Gemm"
  std::string implementation;  // "blocked_avx2"
  DataType element_type = DataType::FLOAT;
  platform::DeviceKind device = platform::DeviceKind::CPU;
  std::uint32_t tuning_abi = 1;  // bumped by a library when old values no longer apply

  // "tunekit_cpu/Gemm/blocked_avx2/float/cpu/abi1"
  std::string to_string() const;

  friend bool operator==(const KernelTuningKey&, const KernelTuningKey&) = default;
  friend std::strong_ordering operator<=>(const KernelTuningKey&, const KernelTuningKey&) = default;
};

struct KernelTuningKeyHash {
  std::size_t operator()(const KernelTuningKey& key) const noexcept;
};

}  // namespace tunekit::tuning
