// Text form and hash of KernelTuningKey.
#include "tunekit/tuning/kernel_tuning_key.hpp"

#include <fmt/format.h>

#include "tunekit/core/hash.hpp"

namespace tunekit::tuning {

std::string KernelTuningKey::to_string() const {
  return fmt::format("{}/{}/{}/{}/{}/abi{}", library, kernel, implementation,
                     core::to_string(element_type), platform::to_string(device), tuning_abi);
}

std::size_t KernelTuningKeyHash::operator()(const KernelTuningKey& key) const noexcept {
  core::CanonicalHasher hasher;
  hasher.add_string(key.library)
      .add_string(key.kernel)
      .add_string(key.implementation)
      .add_int(static_cast<std::int64_t>(key.element_type))
      .add_int(static_cast<std::int64_t>(key.device))
      .add_uint(key.tuning_abi);
  return static_cast<std::size_t>(hasher.digest64());
}

}  // namespace tunekit::tuning
