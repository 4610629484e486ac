#if TUNEKIT_HAVE_HIP_HEADERS
#include "hip_runtime_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <hip/hip_version.h>

#include <cstdlib>
#include <type_traits>

#include "tunekit/platform/hip_device.hpp"

namespace tunekit::platform::hip {
namespace {

#define TUNEKIT_HIP_STRINGIFY_(x) #x
#define TUNEKIT_HIP_STRINGIFY(x) TUNEKIT_HIP_STRINGIFY_(x)

RuntimeLibrary load() {
  RuntimeLibrary library;
  const char* chosen = std::getenv(kHipLibraryVariable);
  library.path =
      chosen != nullptr && *chosen != '\0' ? chosen : "libamdhip64.so." TUNEKIT_HIP_STRINGIFY(HIP_VERSION_MAJOR);
  void* handle = dlopen(library.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    library.failure = fmt::format("cannot load the HIP runtime {}: {}", library.path, why ? why : "unknown reason");
    return library;
  }
  auto find = [&](auto& entry, const char* symbol) {
    if (!library.failure.empty()) return;
    void* address = dlsym(handle, symbol);
    if (address == nullptr) {
      library.failure = fmt::format("the HIP runtime {} has no {}", library.path, symbol);
      return;
    }
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(address);
  };
  find(library.GetDeviceCount, "hipGetDeviceCount");
  find(library.GetDeviceProperties, "hipGetDeviceProperties");
  find(library.SetDevice, "hipSetDevice");
  find(library.RuntimeGetVersion, "hipRuntimeGetVersion");
  find(library.DriverGetVersion, "hipDriverGetVersion");
  find(library.GetErrorName, "hipGetErrorName");
  find(library.GetErrorString, "hipGetErrorString");
  find(library.Malloc, "hipMalloc");
  find(library.Free, "hipFree");
  find(library.Memcpy, "hipMemcpy");
  find(library.StreamCreate, "hipStreamCreate");
  find(library.StreamDestroy, "hipStreamDestroy");
  find(library.StreamSynchronize, "hipStreamSynchronize");
  find(library.EventCreate, "hipEventCreate");
  find(library.EventDestroy, "hipEventDestroy");
  find(library.EventRecord, "hipEventRecord");
  find(library.EventSynchronize, "hipEventSynchronize");
  find(library.EventElapsedTime, "hipEventElapsedTime");
  find(library.DeviceSynchronize, "hipDeviceSynchronize");
  // The handle stays open when an entry point is missing too: nothing of it
  // is called then, and closing a runtime that may have started threads is
  // not safe.
  return library;
}

}  // namespace

std::string RuntimeLibrary::describe(hipError_t status) const {
  const char* name = GetErrorName ? GetErrorName(status) : nullptr;
  const char* text = GetErrorString ? GetErrorString(status) : nullptr;
  const std::string named = name ? name : fmt::format("HIP error {}", static_cast<int>(status));
  // Some runtimes describe an error by its name alone.
  if (text == nullptr || named == text) return named;
  return fmt::format("{} ({})", named, text);
}

const RuntimeLibrary& runtime_library() {
  static const RuntimeLibrary library = load();
  return library;
}

}  // namespace tunekit::platform::hip
#endif
