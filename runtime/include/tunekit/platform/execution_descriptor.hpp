// Properties of a run that may change between sessions on the same processor:
// how many threads it may really use, on which logical CPUs, under which
// NUMA memory policy. Parallel thresholds depend on these, so they are part
// of the execution identity that profiles and caches are matched on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/platform/cpu_descriptor.hpp"

namespace tunekit::platform {

// A sorted set of logical CPU (or NUMA node) indices.
class CpuSet {
 public:
  CpuSet() = default;
  explicit CpuSet(std::vector<std::uint32_t> ids);

  const std::vector<std::uint32_t>& ids() const noexcept { return ids_; }
  std::size_t count() const noexcept { return ids_.size(); }
  bool empty() const noexcept { return ids_.empty(); }
  // Compact ranges: "0-3,8,10-11"; "" when empty.
  std::string to_string() const;
  // Parses the compact form (the Linux cpulist format); nullopt on bad text.
  static std::optional<CpuSet> parse(std::string_view text);

  friend bool operator==(const CpuSet&, const CpuSet&) = default;

 private:
  std::vector<std::uint32_t> ids_;
};

enum class NumaPolicyKind { DEFAULT, FIRST_TOUCH, BIND, INTERLEAVE, NEXT_TOUCH, MIXED, UNKNOWN };

std::string_view to_string(NumaPolicyKind kind) noexcept;  // "default", "bind", ...
std::optional<NumaPolicyKind> parse_numa_policy_kind(std::string_view name) noexcept;

struct NumaPolicy {
  NumaPolicyKind kind = NumaPolicyKind::UNKNOWN;
  CpuSet nodes;  // the memory nodes the policy names; empty for default
  std::string to_string() const;  // "default", "bind:0", "interleave:0-1"
  friend bool operator==(const NumaPolicy&, const NumaPolicy&) = default;
};

struct CpuExecutionDescriptor {
  CpuDescriptor processor;
  std::uint32_t effective_threads = 1;
  CpuSet affinity;         // diagnostics: logical CPUs this process may run on
  NumaPolicy numa_policy;
  // Diagnostics: where effective_threads came from.
  std::optional<double> cgroup_cpu_limit;         // CPUs granted by a cgroup quota
  std::optional<std::uint32_t> requested_threads;  // explicit request of the caller
  friend bool operator==(const CpuExecutionDescriptor&, const CpuExecutionDescriptor&) = default;
};

// The threads a run can use: the affinity count, lowered by a cgroup CPU
// quota (rounded up: 1.5 CPUs can keep 2 threads busy part-time) and by an
// explicit request; never below 1.
std::uint32_t compute_effective_threads(std::size_t affinity_count,
                                        std::optional<double> cgroup_cpu_limit,
                                        std::optional<std::uint32_t> requested_threads) noexcept;

// cgroup v2 "cpu.max" ("max 100000" or "<quota> <period>"): CPUs granted, or
// nullopt when unlimited or unreadable.
std::optional<double> parse_cgroup_v2_cpu_max(std::string_view content) noexcept;
// cgroup v1 cfs quota and period files (quota -1 means unlimited).
std::optional<double> parse_cgroup_v1_quota(std::string_view quota, std::string_view period) noexcept;
// The unified-hierarchy path in /proc/self/cgroup ("0::/user.slice/..").
std::optional<std::string> parse_cgroup_v2_path(std::string_view proc_self_cgroup);

// Execution identity used for matching: processor identity plus effective
// threads and NUMA policy. Affinity mask and quota are diagnostics only.
std::string execution_identity_string(const CpuExecutionDescriptor& execution);
std::uint64_t execution_identity_signature(const CpuExecutionDescriptor& execution);

// Reads the affinity mask, cgroup quota and NUMA policy of this process now.
CpuExecutionDescriptor detect_execution_descriptor(
    std::optional<std::uint32_t> requested_threads = std::nullopt);

}  // namespace tunekit::platform
