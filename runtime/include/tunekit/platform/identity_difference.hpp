// Which identity field tells two executions apart. Readers of stored tuning
// results name this field when an entry measured elsewhere is a miss here;
// diagnostics (cache sizes, core counts, affinity mask, quota) never count.
#pragma once

#include <optional>
#include <string>

#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::platform {

struct IdentityDifference {
  // "architecture", "vendor", "family", "model", "stepping",
  // "microarchitecture", "features", "effective_threads" or "numa_policy".
  std::string field;
  std::string stored;   // the value in the stored descriptor ("?" when unknown)
  std::string current;  // the value in the current descriptor
  // "model: stored 1, current 8"
  std::string to_string() const;
  friend bool operator==(const IdentityDifference&, const IdentityDifference&) = default;
};

// The first identity field, in the order listed above, whose value differs;
// nullopt exactly when the execution identity strings are equal.
std::optional<IdentityDifference> first_identity_difference(const CpuExecutionDescriptor& stored,
                                                            const CpuExecutionDescriptor& current);

}  // namespace tunekit::platform
