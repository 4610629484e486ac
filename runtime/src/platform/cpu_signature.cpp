// Bit layouts of CPUID leaf 1 EAX and MIDR_EL1.
#include "tunekit/platform/cpu_signature.hpp"

namespace tunekit::platform {

X86Signature decode_x86_signature(std::uint32_t eax) noexcept {
  const std::uint32_t stepping = eax & 0xF;
  const std::uint32_t base_model = (eax >> 4) & 0xF;
  const std::uint32_t base_family = (eax >> 8) & 0xF;
  const std::uint32_t extended_model = (eax >> 16) & 0xF;
  const std::uint32_t extended_family = (eax >> 20) & 0xFF;
  X86Signature s;
  s.stepping = stepping;
  s.family = base_family == 0xF ? base_family + extended_family : base_family;
  s.model = (base_family == 0x6 || base_family == 0xF) ? (extended_model << 4) | base_model
                                                      : base_model;
  return s;
}

ArmMidr decode_arm_midr(std::uint32_t midr) noexcept {
  ArmMidr m;
  m.implementer = (midr >> 24) & 0xFF;
  m.variant = (midr >> 20) & 0xF;
  m.architecture = (midr >> 16) & 0xF;
  m.part = (midr >> 4) & 0xFFF;
  m.revision = midr & 0xF;
  return m;
}

std::string_view arm_implementer_name(std::uint32_t implementer) noexcept {
  switch (implementer) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4E: return "NVIDIA";
    case 0x50: return "APM";
    case 0x51: return "Qualcomm";
    case 0x53: return "Samsung";
    case 0x61: return "Apple";
    case 0x6D: return "Microsoft";
    case 0xC0: return "Ampere";
    default: return {};
  }
}

}  // namespace tunekit::platform
