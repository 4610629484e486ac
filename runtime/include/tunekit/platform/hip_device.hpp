// GPUs through the HIP runtime. tunekit loads the runtime library
// (libamdhip64) the first time a program asks for a GPU rather than linking
// it, so that programs and the tunekit tool run where ROCm is absent; when it
// is absent, or no GPU is visible, the probe says which and why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::platform {

// Names the runtime library to load instead of the one tunekit was built
// against (a path or a file name the dynamic loader searches for).
inline constexpr const char* kHipLibraryVariable = "TUNEKIT_HIP_LIBRARY";

struct HipDeviceProperties {
  int index = 0;                 // the HIP device ordinal
  std::string name;              // marketing name, e.g. "AMD Instinct MI210"
  std::string architecture;      // e.g. "gfx90a" (target features such as ":sramecc+" stripped)
  std::string target;            // the full target name the runtime reports, e.g. "gfx90a:sramecc+:xnack-"
  int compute_units = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int clock_mhz = 0;
  int runtime_version = 0;       // hipRuntimeGetVersion
  int driver_version = 0;        // hipDriverGetVersion
};

// What the probe found: the devices, or why there are none.
struct HipProbe {
  bool compiled = false;          // tunekit was built with the HIP headers
  std::string library;            // the runtime library loaded (or tried)
  std::vector<HipDeviceProperties> devices;
  std::string reason;             // why `devices` is empty; empty when it is not
};

// Loads the runtime (once per process) and lists its devices. Never fails:
// an absent library, a runtime error or zero devices is a reason.
HipProbe probe_hip_devices();

// "hip:" and 16 hex digits of a hash over what makes results measured on one
// device valid on another: architecture, compute units, memory, L2, warp
// size, clock and the runtime version.
std::string hip_device_signature(const HipDeviceProperties& properties);

// "hip:0: AMD Instinct MI210 (gfx90a, 104 CUs, 65536 MiB)"
std::string describe_hip_device(const HipDeviceProperties& properties);

// Opens device `index` as a Device (streams are HIP streams, timers HIP
// events). NOT_SUPPORTED with the probe's reason when there is no such device.
Result<std::unique_ptr<Device>> open_hip_device(int index = 0);

}  // namespace tunekit::platform
