// tunekit's own microarchitecture names, by x86 vendor, family and model or by
// Arm implementer and part, for processors newer than the packaged cpuinfo.
// Detection consults it only where cpuinfo names no microarchitecture.
//
// Naming convention, the one cpuinfo already uses so that names from either
// source agree: the core microarchitecture, never the product, in lower-case
// snake_case. "sky_lake" covers Skylake, Kaby/Coffee/Comet Lake and
// Cascade/Cooper Lake; "sunny_cove" Ice Lake client and server;
// "golden_cove" Alder Lake and Sapphire Rapids; "raptor_cove" Raptor Lake and
// Emerald Rapids; "zen" Zen and Zen+; "neoverse_v2"; "firestorm".
// A hybrid x86 processor (performance and efficiency cores under one family
// and model) is named after its performance cores: the family and model say
// which those are, not which core a thread happens to run on. A processor
// outside the table stays unknown: no name is guessed from a neighbouring
// model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tunekit/platform/cpu_descriptor.hpp"

namespace tunekit::platform {

// `vendor` as CpuDescriptor spells it ("Intel", "AMD"); `family` and `model`
// are the display values (extended fields folded in). Empty when not in the
// table.
std::string_view x86_microarchitecture(std::string_view vendor, std::uint32_t family,
                                       std::uint32_t model) noexcept;

// `implementer` and `part` from MIDR_EL1 (0x41 Arm, 0x61 Apple). Empty when
// not in the table.
std::string_view arm_microarchitecture(std::uint32_t implementer, std::uint32_t part) noexcept;

// The name detection records: the descriptor's own (cpuinfo's) when it has
// one, else the table's entry for its architecture, vendor, family and model
// (on Arm, family and model hold implementer and part); empty when neither
// knows, or when family or model is unknown.
std::string resolve_microarchitecture(const CpuDescriptor& cpu);

}  // namespace tunekit::platform
