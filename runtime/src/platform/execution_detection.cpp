// Reads the execution descriptor of this process: affinity mask
// (sched_getaffinity), cgroup CPU quota (v2 cpu.max along the process's
// cgroup path, else v1 cfs files) and NUMA memory policy (hwloc).
#include <hwloc.h>
#include <sched.h>

#include <filesystem>

#include "small_file.hpp"
#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::platform {
namespace {

using detail::read_small_file;

CpuSet read_affinity() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::vector<std::uint32_t> ids;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &mask)) ids.push_back(static_cast<std::uint32_t>(cpu));
    }
  }
  return CpuSet(std::move(ids));
}

// The tightest quota on the way from the process's cgroup up to the root:
// a parent's limit binds its children too.
std::optional<double> read_cgroup_cpu_limit() {
  const std::filesystem::path root = "/sys/fs/cgroup";
  std::optional<double> limit;
  auto tighten = [&](std::optional<double> value) {
    if (value && (!limit || *value < *limit)) limit = value;
  };
  if (auto self = read_small_file("/proc/self/cgroup")) {
    if (auto relative = parse_cgroup_v2_path(*self)) {
      std::filesystem::path dir = root / std::filesystem::path(*relative).relative_path();
      while (true) {
        if (auto content = read_small_file(dir / "cpu.max")) tighten(parse_cgroup_v2_cpu_max(*content));
        if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) break;
        dir = dir.parent_path();
        if (dir.string().size() < root.string().size()) break;
      }
    }
  }
  for (const char* v1 : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
    auto quota = read_small_file(std::filesystem::path(v1) / "cpu.cfs_quota_us");
    auto period = read_small_file(std::filesystem::path(v1) / "cpu.cfs_period_us");
    if (quota && period) tighten(parse_cgroup_v1_quota(*quota, *period));
  }
  return limit;
}

NumaPolicyKind from_hwloc(hwloc_membind_policy_t policy) {
  switch (policy) {
    case HWLOC_MEMBIND_DEFAULT: return NumaPolicyKind::DEFAULT;
    case HWLOC_MEMBIND_FIRSTTOUCH: return NumaPolicyKind::FIRST_TOUCH;
    case HWLOC_MEMBIND_BIND: return NumaPolicyKind::BIND;
    case HWLOC_MEMBIND_INTERLEAVE: return NumaPolicyKind::INTERLEAVE;
    case HWLOC_MEMBIND_NEXTTOUCH: return NumaPolicyKind::NEXT_TOUCH;
    case HWLOC_MEMBIND_MIXED: return NumaPolicyKind::MIXED;
    default: return NumaPolicyKind::UNKNOWN;
  }
}

NumaPolicy read_numa_policy() {
  NumaPolicy result;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return result;
  if (hwloc_topology_load(topology) == 0) {
    hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
    hwloc_membind_policy_t policy{};
    if (nodes && hwloc_get_membind(topology, nodes, &policy, HWLOC_MEMBIND_BYNODESET) == 0) {
      result.kind = from_hwloc(policy);
      // The default policy reports every node; name nodes only when the
      // policy restricts them.
      if (result.kind != NumaPolicyKind::DEFAULT && result.kind != NumaPolicyKind::FIRST_TOUCH) {
        std::vector<std::uint32_t> ids;
        for (int id = hwloc_bitmap_first(nodes); id >= 0; id = hwloc_bitmap_next(nodes, id)) {
          ids.push_back(static_cast<std::uint32_t>(id));
        }
        result.nodes = CpuSet(std::move(ids));
      }
    }
    hwloc_bitmap_free(nodes);
  }
  hwloc_topology_destroy(topology);
  return result;
}

}  // namespace

CpuExecutionDescriptor detect_execution_descriptor(std::optional<std::uint32_t> requested_threads) {
  CpuExecutionDescriptor execution;
  execution.processor = GetCpuDescriptor();
  execution.affinity = read_affinity();
  execution.cgroup_cpu_limit = read_cgroup_cpu_limit();
  execution.requested_threads = requested_threads;
  execution.effective_threads = compute_effective_threads(
      execution.affinity.count(), execution.cgroup_cpu_limit, requested_threads);
  execution.numa_policy = read_numa_policy();
  return execution;
}

}  // namespace tunekit::platform
