// The HIP runtime's entry points, loaded with dlopen on first use (built only
// with the HIP headers, TUNEKIT_HAVE_HIP_HEADERS). Loading instead of linking
// keeps libamdhip64 out of every program that never asks for a GPU.
#pragma once

#include <hip/hip_runtime_api.h>

#include <string>

namespace tunekit::platform::hip {

struct RuntimeLibrary {
  std::string path;     // what was loaded, or tried
  std::string failure;  // why loading failed; empty when every entry point was found

  hipError_t (*GetDeviceCount)(int*) = nullptr;
  hipError_t (*GetDeviceProperties)(hipDeviceProp_t*, int) = nullptr;
  hipError_t (*SetDevice)(int) = nullptr;
  hipError_t (*RuntimeGetVersion)(int*) = nullptr;
  hipError_t (*DriverGetVersion)(int*) = nullptr;
  const char* (*GetErrorName)(hipError_t) = nullptr;
  const char* (*GetErrorString)(hipError_t) = nullptr;
  hipError_t (*Malloc)(void**, size_t) = nullptr;
  hipError_t (*Free)(void*) = nullptr;
  hipError_t (*Memcpy)(void*, const void*, size_t, hipMemcpyKind) = nullptr;
  hipError_t (*StreamCreate)(hipStream_t*) = nullptr;
  hipError_t (*StreamDestroy)(hipStream_t) = nullptr;
  hipError_t (*StreamSynchronize)(hipStream_t) = nullptr;
  hipError_t (*EventCreate)(hipEvent_t*) = nullptr;
  hipError_t (*EventDestroy)(hipEvent_t) = nullptr;
  hipError_t (*EventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*EventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*EventElapsedTime)(float*, hipEvent_t, hipEvent_t) = nullptr;
  hipError_t (*DeviceSynchronize)() = nullptr;

  bool loaded() const noexcept { return failure.empty(); }
  // "hipErrorNoDevice (no ROCm-capable device is detected)"
  std::string describe(hipError_t status) const;
};

// The process's one copy, loaded on the first call: the file named by
// TUNEKIT_HIP_LIBRARY, else the runtime of the major version tunekit was
// built against (libamdhip64.so.5 for ROCm 5: its structures match the
// headers). The library stays loaded for the life of the process.
const RuntimeLibrary& runtime_library();

}  // namespace tunekit::platform::hip
