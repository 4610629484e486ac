// The first differing identity field of two execution descriptors, compared
// in the same text forms that execution_identity_string hashes.
#include "tunekit/platform/identity_difference.hpp"

#include <fmt/format.h>

#include <array>

namespace tunekit::platform {
namespace {

std::string text(const std::optional<std::uint32_t>& value) {
  return value ? std::to_string(*value) : std::string("?");
}

std::string text(const std::string& value) { return value.empty() ? std::string("?") : value; }

std::string text(const CpuFeatureSet& features) { return features.empty() ? std::string("none") : features.to_string(); }

}  // namespace

std::string IdentityDifference::to_string() const {
  return fmt::format("{}: stored {}, current {}", field, stored, current);
}

std::optional<IdentityDifference> first_identity_difference(const CpuExecutionDescriptor& stored,
                                                            const CpuExecutionDescriptor& current) {
  const CpuDescriptor& a = stored.processor;
  const CpuDescriptor& b = current.processor;
  const std::array<IdentityDifference, 9> fields{{
      {"architecture", text(a.architecture), text(b.architecture)},
      {"vendor", text(a.vendor), text(b.vendor)},
      {"family", text(a.family), text(b.family)},
      {"model", text(a.model), text(b.model)},
      {"stepping", text(a.stepping), text(b.stepping)},
      {"microarchitecture", text(a.microarchitecture), text(b.microarchitecture)},
      {"features", text(a.features), text(b.features)},
      {"effective_threads", std::to_string(stored.effective_threads), std::to_string(current.effective_threads)},
      {"numa_policy", stored.numa_policy.to_string(), current.numa_policy.to_string()},
  }};
  for (const IdentityDifference& field : fields) {
    if (field.stored != field.current) return field;
  }
  return std::nullopt;
}

}  // namespace tunekit::platform
