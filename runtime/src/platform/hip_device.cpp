// The HIP device: memory from hipMalloc, HIP streams, event timers, and the
// probe that describe and the tune and calibrate commands report.
#include "tunekit/platform/hip_device.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tunekit/core/hash.hpp"

#if TUNEKIT_HAVE_HIP_HEADERS
#include "hip_runtime_library.hpp"
#endif

namespace tunekit::platform {

std::string hip_device_signature(const HipDeviceProperties& p) {
  const std::string identity =
      fmt::format("hip|arch={}|cu={}|memory={}|l2={}|warp={}|clock={}|runtime={}", p.architecture, p.compute_units,
                  p.memory_bytes, p.l2_bytes, p.warp_size, p.clock_mhz, p.runtime_version);
  return "hip:" + core::to_hex(core::hash64(identity));
}

std::string describe_hip_device(const HipDeviceProperties& p) {
  return fmt::format("hip:{}: {} ({}, {} CUs, {} MiB)", p.index, p.name.empty() ? "unnamed" : p.name,
                     p.architecture.empty() ? "unknown architecture" : p.architecture, p.compute_units,
                     p.memory_bytes >> 20);
}

#if TUNEKIT_HAVE_HIP_HEADERS
namespace {

Error hip_error(const hip::RuntimeLibrary& hip, hipError_t status, std::string_view call) {
  return {ErrorCode::EXECUTION_FAILED, fmt::format("{}: {}", call, hip.describe(status))};
}

#define TUNEKIT_HIP_RETURN_IF_FAILED(call_text, status_expression)                                 \
  do {                                                                                             \
    const hipError_t tunekit_hip_status_ = (status_expression);                                    \
    if (tunekit_hip_status_ != hipSuccess) return hip_error(hip_, tunekit_hip_status_, call_text); \
  } while (false)

class HipStream final : public Stream {
 public:
  HipStream(const hip::RuntimeLibrary& hip, hipStream_t stream) : hip_(hip), stream_(stream) {}
  ~HipStream() override { static_cast<void>(hip_.StreamDestroy(stream_)); }  // nothing to report to
  Error synchronize() override {
    TUNEKIT_HIP_RETURN_IF_FAILED("hipStreamSynchronize", hip_.StreamSynchronize(stream_));
    return Error::ok();
  }
  void* native_handle() const noexcept override { return stream_; }

 private:
  const hip::RuntimeLibrary& hip_;
  hipStream_t stream_;
};

// Events recorded on the stream: the time is the device's between the two
// points, not the host's around the calls.
class HipEventTimer final : public Timer {
 public:
  HipEventTimer(const hip::RuntimeLibrary& hip, hipStream_t stream, hipEvent_t start, hipEvent_t stop)
      : hip_(hip), stream_(stream), start_(start), stop_(stop) {}
  ~HipEventTimer() override {
    static_cast<void>(hip_.EventDestroy(start_));
    static_cast<void>(hip_.EventDestroy(stop_));
  }
  Error start() override {
    TUNEKIT_HIP_RETURN_IF_FAILED("hipEventRecord", hip_.EventRecord(start_, stream_));
    started_ = true;
    stopped_ = false;
    return Error::ok();
  }
  Error stop() override {
    if (!started_) return {ErrorCode::BAD_STATE, "timer stopped before it was started"};
    TUNEKIT_HIP_RETURN_IF_FAILED("hipEventRecord", hip_.EventRecord(stop_, stream_));
    stopped_ = true;
    return Error::ok();
  }
  Result<double> elapsed_ms() override {
    if (!stopped_) return Error(ErrorCode::BAD_STATE, "timer read before start and stop were recorded");
    TUNEKIT_HIP_RETURN_IF_FAILED("hipEventSynchronize", hip_.EventSynchronize(stop_));
    float milliseconds = 0;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipEventElapsedTime", hip_.EventElapsedTime(&milliseconds, start_, stop_));
    return static_cast<double>(milliseconds);
  }
  // HIP documents event timing to about half a microsecond.
  double resolution_ms() const override { return 0.0005; }

 private:
  const hip::RuntimeLibrary& hip_;
  hipStream_t stream_;
  hipEvent_t start_;
  hipEvent_t stop_;
  bool started_ = false;
  bool stopped_ = false;
};

// The runtime reports targets as "gfx90a:sramecc+:xnack-"; profiles and
// signatures use the architecture before the first colon.
std::string architecture_of(const char* target) {
  std::string text(target);
  return text.substr(0, text.find(':'));
}

HipDeviceProperties read_properties(const hip::RuntimeLibrary& hip, int index, const hipDeviceProp_t& p) {
  HipDeviceProperties out;
  out.index = index;
  out.name = p.name;
  out.target = p.gcnArchName;
  out.architecture = architecture_of(p.gcnArchName);
  out.compute_units = p.multiProcessorCount;
  out.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  out.l2_bytes = p.l2CacheSize;
  out.warp_size = p.warpSize;
  out.max_threads_per_block = p.maxThreadsPerBlock;
  out.clock_mhz = p.clockRate / 1000;
  // A version the runtime cannot report stays 0.
  static_cast<void>(hip.RuntimeGetVersion(&out.runtime_version));
  static_cast<void>(hip.DriverGetVersion(&out.driver_version));
  return out;
}

class HipDevice final : public Device {
 public:
  HipDevice(const hip::RuntimeLibrary& hip, HipDeviceProperties properties)
      : hip_(hip), properties_(std::move(properties)) {}

  DeviceKind kind() const override { return DeviceKind::HIP; }
  std::string name() const override { return describe_hip_device(properties_); }
  std::string signature() const override { return hip_device_signature(properties_); }
  bool host_addressable() const override { return false; }

  Result<DeviceBuffer> allocate(std::size_t bytes, std::size_t /*alignment*/) override {
    // hipMalloc aligns to at least 256 bytes, above any alignment asked for.
    if (Error e = select(); e.is_bad()) return e;
    void* data = nullptr;
    const hipError_t status = hip_.Malloc(&data, std::max<std::size_t>(bytes, 1));
    if (status != hipSuccess) {
      return Error(ErrorCode::EXECUTION_FAILED,
                   fmt::format("hipMalloc of {} bytes on {}: {}", bytes, name(), hip_.describe(status)));
    }
    return DeviceBuffer(data, bytes, &free_device_memory);
  }

  Result<std::unique_ptr<Stream>> create_stream() override {
    if (Error e = select(); e.is_bad()) return e;
    hipStream_t stream = nullptr;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipStreamCreate", hip_.StreamCreate(&stream));
    return std::unique_ptr<Stream>(std::make_unique<HipStream>(hip_, stream));
  }

  Result<std::unique_ptr<Timer>> create_timer(Stream& stream) override {
    if (Error e = select(); e.is_bad()) return e;
    hipEvent_t start = nullptr;
    hipEvent_t stop = nullptr;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipEventCreate", hip_.EventCreate(&start));
    if (const hipError_t status = hip_.EventCreate(&stop); status != hipSuccess) {
      static_cast<void>(hip_.EventDestroy(start));
      return hip_error(hip_, status, "hipEventCreate");
    }
    return std::unique_ptr<Timer>(
        std::make_unique<HipEventTimer>(hip_, static_cast<hipStream_t>(stream.native_handle()), start, stop));
  }

  Error synchronize() override {
    if (Error e = select(); e.is_bad()) return e;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipDeviceSynchronize", hip_.DeviceSynchronize());
    return Error::ok();
  }

  Error copy_to_device(void* device_destination, const void* host_source, std::size_t bytes) override {
    if (bytes == 0) return Error::ok();
    if (Error e = select(); e.is_bad()) return e;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipMemcpy to the device",
                                 hip_.Memcpy(device_destination, host_source, bytes, hipMemcpyHostToDevice));
    return Error::ok();
  }

  Error copy_to_host(void* host_destination, const void* device_source, std::size_t bytes) override {
    if (bytes == 0) return Error::ok();
    if (Error e = select(); e.is_bad()) return e;
    TUNEKIT_HIP_RETURN_IF_FAILED("hipMemcpy to the host",
                                 hip_.Memcpy(host_destination, device_source, bytes, hipMemcpyDeviceToHost));
    return Error::ok();
  }

 private:
  // HIP's current device is per host thread: every call that allocates or
  // creates makes this device current first.
  Error select() {
    TUNEKIT_HIP_RETURN_IF_FAILED("hipSetDevice", hip_.SetDevice(properties_.index));
    return Error::ok();
  }

  static void free_device_memory(void* data) noexcept { static_cast<void>(hip::runtime_library().Free(data)); }

  const hip::RuntimeLibrary& hip_;
  HipDeviceProperties properties_;
};

}  // namespace

HipProbe probe_hip_devices() {
  HipProbe probe;
  probe.compiled = true;
  const hip::RuntimeLibrary& hip = hip::runtime_library();
  probe.library = hip.path;
  if (!hip.loaded()) {
    probe.reason = hip.failure;
    return probe;
  }
  int count = 0;
  if (const hipError_t status = hip.GetDeviceCount(&count); status != hipSuccess) {
    probe.reason = "no HIP device: hipGetDeviceCount: " + hip.describe(status);
    return probe;
  }
  if (count == 0) {
    probe.reason = "no HIP device: the runtime reports none";
    return probe;
  }
  for (int index = 0; index < count; ++index) {
    hipDeviceProp_t properties{};
    if (const hipError_t status = hip.GetDeviceProperties(&properties, index); status != hipSuccess) {
      probe.reason = fmt::format("hipGetDeviceProperties({}): {}", index, hip.describe(status));
      probe.devices.clear();
      return probe;
    }
    probe.devices.push_back(read_properties(hip, index, properties));
  }
  return probe;
}

Result<std::unique_ptr<Device>> open_hip_device(int index) {
  HipProbe probe = probe_hip_devices();
  if (probe.devices.empty()) return Error(ErrorCode::NOT_SUPPORTED, probe.reason);
  if (index < 0 || index >= static_cast<int>(probe.devices.size())) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("HIP device {} does not exist: this machine has {} (0..{})",
                                                       index, probe.devices.size(), probe.devices.size() - 1));
  }
  return std::unique_ptr<Device>(
      std::make_unique<HipDevice>(hip::runtime_library(), std::move(probe.devices[static_cast<std::size_t>(index)])));
}

#else  // built without the HIP headers

HipProbe probe_hip_devices() {
  HipProbe probe;
  probe.reason =
      "tunekit was built without HIP (no HIP headers or hipcc at configure time: Debian packages "
      "libamdhip64-dev and hipcc)";
  return probe;
}

Result<std::unique_ptr<Device>> open_hip_device(int /*index*/) {
  return Error(ErrorCode::NOT_SUPPORTED, probe_hip_devices().reason);
}

#endif

}  // namespace tunekit::platform
