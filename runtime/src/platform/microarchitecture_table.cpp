// The rows of tunekit's microarchitecture table. Model numbers follow the
// vendors' assignments as the Linux kernel records them (intel-family.h, the
// Zen generation ranges of arch/x86/kernel/cpu/amd.c, arm64 cputype.h).
// Adding a processor is adding a row here and its expectation in
// tests/unit/platform/microarchitecture_table_test.cpp.
#include "tunekit/platform/microarchitecture_table.hpp"

namespace tunekit::platform {
namespace {

struct X86Row {
  std::string_view vendor;
  std::uint32_t family;
  std::uint32_t first_model;  // inclusive range: AMD assigns model blocks per generation
  std::uint32_t last_model;
  std::string_view name;
};

constexpr X86Row kX86Rows[] = {
    // Intel family 6 performance cores, client and server.
    {"Intel", 6, 0x4E, 0x4E, "sky_lake"},      // Skylake-L
    {"Intel", 6, 0x5E, 0x5E, "sky_lake"},      // Skylake
    {"Intel", 6, 0x55, 0x55, "sky_lake"},      // Skylake-SP, Cascade Lake, Cooper Lake (by stepping)
    {"Intel", 6, 0x8E, 0x8E, "sky_lake"},      // Kaby/Amber/Whiskey/Comet Lake-L
    {"Intel", 6, 0x9E, 0x9E, "sky_lake"},      // Kaby Lake, Coffee Lake
    {"Intel", 6, 0xA5, 0xA5, "sky_lake"},      // Comet Lake
    {"Intel", 6, 0xA6, 0xA6, "sky_lake"},      // Comet Lake-L
    {"Intel", 6, 0x66, 0x66, "palm_cove"},     // Cannon Lake-L
    {"Intel", 6, 0x7D, 0x7D, "sunny_cove"},    // Ice Lake
    {"Intel", 6, 0x7E, 0x7E, "sunny_cove"},    // Ice Lake-L
    {"Intel", 6, 0x6A, 0x6A, "sunny_cove"},    // Ice Lake-SP
    {"Intel", 6, 0x6C, 0x6C, "sunny_cove"},    // Ice Lake-D
    {"Intel", 6, 0x9D, 0x9D, "sunny_cove"},    // Ice Lake NNP-I
    {"Intel", 6, 0xA7, 0xA7, "cypress_cove"},  // Rocket Lake
    {"Intel", 6, 0x8C, 0x8C, "willow_cove"},   // Tiger Lake-L
    {"Intel", 6, 0x8D, 0x8D, "willow_cove"},   // Tiger Lake
    {"Intel", 6, 0x97, 0x97, "golden_cove"},   // Alder Lake (hybrid with gracemont)
    {"Intel", 6, 0x9A, 0x9A, "golden_cove"},   // Alder Lake-L (hybrid with gracemont)
    {"Intel", 6, 0x8F, 0x8F, "golden_cove"},   // Sapphire Rapids
    {"Intel", 6, 0xB7, 0xB7, "raptor_cove"},   // Raptor Lake (hybrid with gracemont)
    {"Intel", 6, 0xBA, 0xBA, "raptor_cove"},   // Raptor Lake-P (hybrid with gracemont)
    {"Intel", 6, 0xBF, 0xBF, "raptor_cove"},   // Raptor Lake-S (hybrid with gracemont)
    {"Intel", 6, 0xCF, 0xCF, "raptor_cove"},   // Emerald Rapids
    {"Intel", 6, 0xD7, 0xD7, "raptor_cove"},   // Bartlett Lake
    {"Intel", 6, 0xAA, 0xAA, "redwood_cove"},  // Meteor Lake-L (hybrid with crestmont)
    {"Intel", 6, 0xAC, 0xAC, "redwood_cove"},  // Meteor Lake (hybrid with crestmont)
    {"Intel", 6, 0xAD, 0xAD, "redwood_cove"},  // Granite Rapids
    {"Intel", 6, 0xAE, 0xAE, "redwood_cove"},  // Granite Rapids-D
    {"Intel", 6, 0xC5, 0xC5, "lion_cove"},     // Arrow Lake-H (hybrid with skymont)
    {"Intel", 6, 0xC6, 0xC6, "lion_cove"},     // Arrow Lake (hybrid with skymont)
    {"Intel", 6, 0xBD, 0xBD, "lion_cove"},     // Lunar Lake (hybrid with skymont)
    {"Intel", 6, 0xCC, 0xCC, "cougar_cove"},   // Panther Lake (hybrid with darkmont)
    {"Intel", 19, 0x01, 0x01, "panther_cove"}, // Diamond Rapids
    // Intel efficiency-core-only processors.
    {"Intel", 6, 0x86, 0x86, "tremont"},       // Snow Ridge
    {"Intel", 6, 0x96, 0x96, "tremont"},       // Elkhart Lake
    {"Intel", 6, 0x9C, 0x9C, "tremont"},       // Jasper Lake
    {"Intel", 6, 0xBE, 0xBE, "gracemont"},     // Alder Lake-N
    {"Intel", 6, 0xAF, 0xAF, "crestmont"},     // Sierra Forest
    {"Intel", 6, 0xB6, 0xB6, "crestmont"},     // Grand Ridge
    {"Intel", 6, 0xDD, 0xDD, "darkmont"},      // Clearwater Forest
    // AMD: Zen and Zen+ share family 0x17 blocks and one name, as in cpuinfo.
    {"AMD", 0x17, 0x00, 0x2F, "zen"},
    {"AMD", 0x17, 0x50, 0x5F, "zen"},
    {"AMD", 0x17, 0x30, 0x4F, "zen2"},
    {"AMD", 0x17, 0x60, 0x7F, "zen2"},
    {"AMD", 0x17, 0x90, 0x91, "zen2"},
    {"AMD", 0x17, 0xA0, 0xAF, "zen2"},
    {"AMD", 0x19, 0x00, 0x0F, "zen3"},
    {"AMD", 0x19, 0x20, 0x5F, "zen3"},
    {"AMD", 0x19, 0x10, 0x1F, "zen4"},
    {"AMD", 0x19, 0x60, 0xAF, "zen4"},
    {"AMD", 0x1A, 0x00, 0x2F, "zen5"},
    {"AMD", 0x1A, 0x40, 0x4F, "zen5"},
    {"AMD", 0x1A, 0x60, 0x7F, "zen5"},
};

struct ArmRow {
  std::uint32_t implementer;
  std::uint32_t part;
  std::string_view name;
};

constexpr ArmRow kArmRows[] = {
    {0x41, 0xD0C, "neoverse_n1"},
    {0x41, 0xD49, "neoverse_n2"},
    {0x41, 0xD8E, "neoverse_n3"},
    {0x41, 0xD40, "neoverse_v1"},
    {0x41, 0xD4F, "neoverse_v2"},
    {0x41, 0xD84, "neoverse_v3"},
    {0x41, 0xD83, "neoverse_v3"},  // Neoverse V3AE: the V3 core
    {0x41, 0xD4A, "neoverse_e1"},
    {0x6D, 0xD49, "neoverse_n2"},  // Microsoft Azure Cobalt 100: a Neoverse N2
    // Apple: one part per core kind and die (base, Pro, Max).
    {0x61, 0x022, "icestorm"},  {0x61, 0x024, "icestorm"},  {0x61, 0x028, "icestorm"},   // M1
    {0x61, 0x023, "firestorm"}, {0x61, 0x025, "firestorm"}, {0x61, 0x029, "firestorm"},  // M1
    {0x61, 0x032, "blizzard"},  {0x61, 0x034, "blizzard"},  {0x61, 0x038, "blizzard"},   // M2
    {0x61, 0x033, "avalanche"}, {0x61, 0x035, "avalanche"}, {0x61, 0x039, "avalanche"},  // M2
};

bool is_arm(std::string_view architecture) {
  return architecture == "aarch64" || architecture == "arm64" || architecture.starts_with("arm");
}

}  // namespace

std::string_view x86_microarchitecture(std::string_view vendor, std::uint32_t family,
                                       std::uint32_t model) noexcept {
  for (const X86Row& row : kX86Rows) {
    if (row.vendor == vendor && row.family == family && model >= row.first_model &&
        model <= row.last_model) {
      return row.name;
    }
  }
  return {};
}

std::string_view arm_microarchitecture(std::uint32_t implementer, std::uint32_t part) noexcept {
  for (const ArmRow& row : kArmRows) {
    if (row.implementer == implementer && row.part == part) return row.name;
  }
  return {};
}

std::string resolve_microarchitecture(const CpuDescriptor& cpu) {
  if (!cpu.microarchitecture.empty()) return cpu.microarchitecture;
  if (!cpu.family || !cpu.model) return {};
  if (cpu.architecture == "x86_64" || cpu.architecture == "i686" || cpu.architecture == "i386") {
    return std::string(x86_microarchitecture(cpu.vendor, *cpu.family, *cpu.model));
  }
  if (is_arm(cpu.architecture)) return std::string(arm_microarchitecture(*cpu.family, *cpu.model));
  return {};
}

}  // namespace tunekit::platform
