// The host processor as a Device: aligned host memory, streams that run work
// synchronously (so synchronize has nothing to wait for) and a steady-clock
// timer.
#pragma once

#include <chrono>

#include "tunekit/platform/device.hpp"
#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::platform {

// Smallest positive step of std::chrono::steady_clock observed by probing
// consecutive reads, in seconds; measured once per process.
double steady_clock_resolution_seconds();

class CpuDevice final : public Device {
 public:
  // Describes the current execution (affinity, quota, NUMA) of this process.
  CpuDevice();
  explicit CpuDevice(CpuExecutionDescriptor execution);

  const CpuExecutionDescriptor& execution() const noexcept { return execution_; }

  DeviceKind kind() const override { return DeviceKind::CPU; }
  std::string name() const override;
  // "cpu:" followed by the 16 hex digits of the execution identity signature.
  std::string signature() const override;
  Result<DeviceBuffer> allocate(std::size_t bytes, std::size_t alignment = 64) override;
  Result<std::unique_ptr<Stream>> create_stream() override;
  Result<std::unique_ptr<Timer>> create_timer(Stream& stream) override;
  Error synchronize() override { return Error::ok(); }

 private:
  CpuExecutionDescriptor execution_;
};

}  // namespace tunekit::platform
