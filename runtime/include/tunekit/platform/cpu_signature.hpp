// Decoding of the raw identification registers: the x86 CPUID leaf 1
// signature and the Arm MIDR_EL1 value. Pure functions, tested with the
// values of known processors.
#pragma once

#include <cstdint>
#include <string_view>

namespace tunekit::platform {

struct X86Signature {
  std::uint32_t family = 0;    // base family, plus extended family when base is 0xF
  std::uint32_t model = 0;     // base model, plus extended model << 4 when family 6 or 0xF
  std::uint32_t stepping = 0;
};

X86Signature decode_x86_signature(std::uint32_t cpuid_leaf1_eax) noexcept;

struct ArmMidr {
  std::uint32_t implementer = 0;  // 0x41 Arm, 0x51 Qualcomm, 0x61 Apple, ...
  std::uint32_t variant = 0;
  std::uint32_t architecture = 0;
  std::uint32_t part = 0;
  std::uint32_t revision = 0;
};

ArmMidr decode_arm_midr(std::uint32_t midr) noexcept;

// Vendor name of an Arm implementer code; empty when the code is not known.
std::string_view arm_implementer_name(std::uint32_t implementer) noexcept;

}  // namespace tunekit::platform
