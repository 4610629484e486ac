// The CPU device: aligned allocation through operator new with an alignment,
// a no-op stream, and a steady-clock timer.
#include "tunekit/platform/cpu_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "tunekit/core/hash.hpp"

namespace tunekit::platform {
namespace {

using Clock = std::chrono::steady_clock;

class CpuStream final : public Stream {
 public:
  Error synchronize() override { return Error::ok(); }
};

class SteadyClockTimer final : public Timer {
 public:
  Error start() override {
    start_ = Clock::now();
    started_ = true;
    stopped_ = false;
    return Error::ok();
  }
  Error stop() override {
    if (!started_) return {ErrorCode::BAD_STATE, "timer stopped before it was started"};
    stop_ = Clock::now();
    stopped_ = true;
    return Error::ok();
  }
  Result<double> elapsed_ms() override {
    if (!stopped_) return Error(ErrorCode::BAD_STATE, "timer read before start and stop were recorded");
    return std::chrono::duration<double, std::milli>(stop_ - start_).count();
  }
  double resolution_ms() const override { return steady_clock_resolution_seconds() * 1e3; }

 private:
  Clock::time_point start_{};
  Clock::time_point stop_{};
  bool started_ = false;
  bool stopped_ = false;
};

void free_aligned(void* data) noexcept {
  // Every CPU buffer is allocated with 64-byte alignment (see allocate).
  ::operator delete(data, std::align_val_t{64});
}

}  // namespace

std::string_view to_string(DeviceKind kind) noexcept {
  switch (kind) {
    case DeviceKind::CPU: return "cpu";
    case DeviceKind::HIP: return "hip";
  }
  return "unknown";
}

Error Device::copy_to_device(void* device_destination, const void* host_source, std::size_t bytes) {
  if (!host_addressable()) {
    return {ErrorCode::NOT_SUPPORTED, fmt::format("{} has no copy to its memory", name())};
  }
  if (bytes > 0) std::memcpy(device_destination, host_source, bytes);
  return Error::ok();
}

Error Device::copy_to_host(void* host_destination, const void* device_source, std::size_t bytes) {
  if (!host_addressable()) {
    return {ErrorCode::NOT_SUPPORTED, fmt::format("{} has no copy from its memory", name())};
  }
  if (bytes > 0) std::memcpy(host_destination, device_source, bytes);
  return Error::ok();
}

double steady_clock_resolution_seconds() {
  static const double resolution = [] {
    Clock::duration smallest = Clock::duration::max();
    for (int probe = 0; probe < 200; ++probe) {
      const Clock::time_point first = Clock::now();
      Clock::time_point next = Clock::now();
      while (next == first) next = Clock::now();
      smallest = std::min(smallest, next - first);
    }
    return std::chrono::duration<double>(smallest).count();
  }();
  return resolution;
}

CpuDevice::CpuDevice() : CpuDevice(detect_execution_descriptor()) {}

CpuDevice::CpuDevice(CpuExecutionDescriptor execution) : execution_(std::move(execution)) {}

std::string CpuDevice::name() const {
  const CpuDescriptor& cpu = execution_.processor;
  std::string model = cpu.model_name.empty() ? cpu.vendor : cpu.model_name;
  if (model.empty()) model = cpu.architecture;
  return fmt::format("cpu: {} ({} threads)", model, execution_.effective_threads);
}

std::string CpuDevice::signature() const {
  return "cpu:" + core::to_hex(execution_identity_signature(execution_));
}

Result<DeviceBuffer> CpuDevice::allocate(std::size_t bytes, std::size_t alignment) {
  if (alignment == 0 || !std::has_single_bit(alignment) || alignment > 64) {
    return Error(ErrorCode::INVALID_VALUE,
                 fmt::format("alignment {} must be a power of two no larger than 64", alignment));
  }
  // Every buffer is 64-byte aligned (a cache line), which satisfies any smaller
  // request and lets one deleter free them all.
  void* data = ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{64}, std::nothrow);
  if (data == nullptr) {
    return Error(ErrorCode::EXECUTION_FAILED, fmt::format("cannot allocate {} bytes", bytes));
  }
  return DeviceBuffer(data, bytes, &free_aligned);
}

Result<std::unique_ptr<Stream>> CpuDevice::create_stream() {
  return std::unique_ptr<Stream>(std::make_unique<CpuStream>());
}

Result<std::unique_ptr<Timer>> CpuDevice::create_timer(Stream& /*stream*/) {
  return std::unique_ptr<Timer>(std::make_unique<SteadyClockTimer>());
}

}  // namespace tunekit::platform
