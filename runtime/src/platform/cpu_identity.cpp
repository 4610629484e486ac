// The identity string and signature of a CpuDescriptor, and the cached
// descriptor of this process.
#include <fmt/format.h>

#include "tunekit/core/hash.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"

namespace tunekit::platform {
namespace {

std::string field(const std::optional<std::uint32_t>& value) {
  return value ? std::to_string(*value) : std::string("?");
}

std::string field(const std::string& value) { return value.empty() ? std::string("?") : value; }

}  // namespace

std::string identity_string(const CpuDescriptor& cpu) {
  return fmt::format("{}|{}|family={}|model={}|stepping={}|uarch={}|features={}",
                     field(cpu.architecture), field(cpu.vendor), field(cpu.family),
                     field(cpu.model), field(cpu.stepping), field(cpu.microarchitecture),
                     cpu.features.to_string());
}

std::uint64_t identity_signature(const CpuDescriptor& cpu) {
  return core::hash64(identity_string(cpu));
}

const CpuDescriptor& GetCpuDescriptor() {
  // A function-local static is initialised exactly once, even when several
  // threads arrive together.
  static const CpuDescriptor descriptor = detect_cpu_descriptor();
  return descriptor;
}

}  // namespace tunekit::platform
