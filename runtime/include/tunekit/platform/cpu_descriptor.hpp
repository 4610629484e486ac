// The processor as data: a plain struct with optional fields that stay empty
// when unknown (never invented). Detection runs once per process; every
// matching rule takes a descriptor as a parameter so that tests can describe
// processors that are not the one they run on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tunekit/platform/cpu_features.hpp"

namespace tunekit::platform {

struct CpuDescriptor {
  // Identity: what matching (selectors, calibrated profiles, caches) uses.
  std::string architecture;       // "x86_64", "aarch64", ...
  std::string vendor;             // "AMD", "Intel", "ARM", ...; empty when unknown
  std::optional<std::uint32_t> family;    // x86: display family; Arm: implementer code
  std::optional<std::uint32_t> model;     // x86: display model; Arm: part number
  std::optional<std::uint32_t> stepping;  // x86: stepping; Arm: variant << 4 | revision
  std::string microarchitecture;  // "zen3", "sky_lake", "neoverse_n1", ...; empty when unknown
  CpuFeatureSet features;

  // Diagnostics only: recorded, shown, never part of the identity, so that a
  // VM reporting another L3 size does not turn every cache entry into a miss.
  std::optional<std::size_t> cache_line_bytes;
  std::optional<std::size_t> l1_data_bytes;  // one instance (per core)
  std::optional<std::size_t> l2_bytes;       // one instance
  std::optional<std::size_t> l3_bytes;       // one instance
  std::optional<std::uint32_t> l1_data_instances;
  std::optional<std::uint32_t> l2_instances;
  std::optional<std::uint32_t> l3_instances;
  std::optional<std::uint32_t> physical_cores;
  std::optional<std::uint32_t> logical_cores;
  std::string model_name;         // marketing name, e.g. "AMD EPYC"

  friend bool operator==(const CpuDescriptor&, const CpuDescriptor&) = default;
};

// Stable one-line identity, e.g.
// "x86_64|AMD|family=25|model=1|stepping=1|uarch=zen3|features=avx,avx2,...";
// unknown fields are written as "?".
std::string identity_string(const CpuDescriptor& cpu);
// XXH3-64 of identity_string: equal exactly when the identities are equal.
std::uint64_t identity_signature(const CpuDescriptor& cpu);

// Reads the processor of this machine through cpuinfo and hwloc. Costs
// milliseconds; callers want GetCpuDescriptor().
CpuDescriptor detect_cpu_descriptor();

// The descriptor of this machine, detected on first use (thread-safe) and
// immutable for the life of the process.
const CpuDescriptor& GetCpuDescriptor();

}  // namespace tunekit::platform
