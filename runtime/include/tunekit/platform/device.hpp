// The device abstraction shared by calibration and autotune: a device owns
// memory, streams and timers. Timers are event-style (start and stop are
// recorded on a stream, the elapsed time is read after both complete) so
// that a GPU implementation times device work, not host calls.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "tunekit/core/result.hpp"

namespace tunekit::platform {

enum class DeviceKind { CPU, HIP };
std::string_view to_string(DeviceKind kind) noexcept;  // "cpu", "hip"

// Owned device memory, released by the device's deleter. Move-only.
class DeviceBuffer {
 public:
  using Deleter = void (*)(void* data) noexcept;
  DeviceBuffer() = default;
  DeviceBuffer(void* data, std::size_t size, Deleter deleter) noexcept
      : data_(data), size_(size), deleter_(deleter) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_ && deleter_) deleter_(data_);
  }

  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(deleter_, other.deleter_);
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  Deleter deleter_ = nullptr;
};

class Stream {
 public:
  virtual ~Stream() = default;
  // Waits until all work submitted to this stream has finished.
  virtual Error synchronize() = 0;
  // The runtime's own handle (a hipStream_t on a HIP device), which engines
  // launch their work on; null on the CPU, whose streams run work at once.
  virtual void* native_handle() const noexcept { return nullptr; }
};

class Timer {
 public:
  virtual ~Timer() = default;
  virtual Error start() = 0;  // records the start point on the timer's stream
  virtual Error stop() = 0;   // records the stop point on the timer's stream
  // Milliseconds between the last start and stop; waits for the stop point.
  virtual Result<double> elapsed_ms() = 0;
  // Smallest time difference the timer can report, in milliseconds.
  virtual double resolution_ms() const = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual DeviceKind kind() const = 0;
  // Readable name, e.g. "cpu: AMD EPYC (2 threads)".
  virtual std::string name() const = 0;
  // Stable identity used to validate stored results: equal signatures mean
  // results measured on one device apply to the other.
  virtual std::string signature() const = 0;
  virtual Result<DeviceBuffer> allocate(std::size_t bytes, std::size_t alignment = 64) = 0;
  virtual Result<std::unique_ptr<Stream>> create_stream() = 0;
  virtual Result<std::unique_ptr<Timer>> create_timer(Stream& stream) = 0;
  // Waits until the whole device is idle.
  virtual Error synchronize() = 0;
  // True when the host reads and writes this device's memory directly (the
  // CPU). Otherwise data crosses with the copies below.
  virtual bool host_addressable() const { return kind() == DeviceKind::CPU; }
  // Copies between host memory and memory this device allocated; both wait
  // until the copy is done. The defaults are for host-addressable devices.
  virtual Error copy_to_device(void* device_destination, const void* host_source, std::size_t bytes);
  virtual Error copy_to_host(void* host_destination, const void* device_source, std::size_t bytes);
};

}  // namespace tunekit::platform
