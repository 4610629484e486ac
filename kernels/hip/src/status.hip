// Error names and texts of the HIP runtime for the host code of the engines.
#include <hip/hip_runtime.h>
#include <hip/hip_version.h>

#include "hip_kernels.hpp"

namespace tunekit::hip_kernels {

const char* status_name(int status) { return hipGetErrorName(static_cast<hipError_t>(status)); }
const char* status_text(int status) { return hipGetErrorString(static_cast<hipError_t>(status)); }

#define TUNEKIT_HIP_TEXT_(x) #x
#define TUNEKIT_HIP_TEXT(x) TUNEKIT_HIP_TEXT_(x)
const char* compiled_hip_version() {
  return TUNEKIT_HIP_TEXT(HIP_VERSION_MAJOR) "." TUNEKIT_HIP_TEXT(HIP_VERSION_MINOR) "." TUNEKIT_HIP_TEXT(
      HIP_VERSION_PATCH);
}

}  // namespace tunekit::hip_kernels
