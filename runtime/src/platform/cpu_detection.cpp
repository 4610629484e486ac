// Detection of this machine's processor: cpuinfo for identity, features and
// caches, hwloc to fill topology counts that cpuinfo could not read, a
// direct CPUID read for the x86 features this cpuinfo release predates
// (AVX-VNNI, AMX) and tunekit's own table for the microarchitectures it
// predates. Anything that cannot be read stays unknown.
#include <cpuinfo.h>
#include <hwloc.h>
#include <sys/utsname.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <array>
#include <utility>

#include "tunekit/core/log.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"
#include "tunekit/platform/cpu_signature.hpp"
#include "tunekit/platform/microarchitecture_table.hpp"

namespace tunekit::platform {
namespace {

std::string machine_architecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  utsname names{};
  if (uname(&names) == 0) return names.machine;
  return {};
#endif
}

std::string vendor_name(cpuinfo_vendor vendor) {
  switch (vendor) {
    case cpuinfo_vendor_intel: return "Intel";
    case cpuinfo_vendor_amd: return "AMD";
    case cpuinfo_vendor_arm: return "ARM";
    case cpuinfo_vendor_qualcomm: return "Qualcomm";
    case cpuinfo_vendor_apple: return "Apple";
    case cpuinfo_vendor_samsung: return "Samsung";
    case cpuinfo_vendor_nvidia: return "NVIDIA";
    case cpuinfo_vendor_mips: return "MIPS";
    case cpuinfo_vendor_ibm: return "IBM";
    case cpuinfo_vendor_ingenic: return "Ingenic";
    case cpuinfo_vendor_via: return "VIA";
    case cpuinfo_vendor_cavium: return "Cavium";
    case cpuinfo_vendor_broadcom: return "Broadcom";
    case cpuinfo_vendor_apm: return "APM";
    case cpuinfo_vendor_huawei: return "HiSilicon";
    case cpuinfo_vendor_hygon: return "Hygon";
    default: return {};
  }
}

// Some enumerators share a value (kaby_lake is sky_lake); the first listed
// name wins.
constexpr std::array<std::pair<cpuinfo_uarch, const char*>, 44> kUarchNames{{
    {cpuinfo_uarch_nehalem, "nehalem"},         {cpuinfo_uarch_sandy_bridge, "sandy_bridge"},
    {cpuinfo_uarch_ivy_bridge, "ivy_bridge"},   {cpuinfo_uarch_haswell, "haswell"},
    {cpuinfo_uarch_broadwell, "broadwell"},     {cpuinfo_uarch_sky_lake, "sky_lake"},
    {cpuinfo_uarch_palm_cove, "palm_cove"},     {cpuinfo_uarch_sunny_cove, "sunny_cove"},
    {cpuinfo_uarch_silvermont, "silvermont"},   {cpuinfo_uarch_airmont, "airmont"},
    {cpuinfo_uarch_goldmont, "goldmont"},       {cpuinfo_uarch_goldmont_plus, "goldmont_plus"},
    {cpuinfo_uarch_knights_landing, "knights_landing"},
    {cpuinfo_uarch_knights_mill, "knights_mill"},
    {cpuinfo_uarch_k8, "k8"},                   {cpuinfo_uarch_k10, "k10"},
    {cpuinfo_uarch_bulldozer, "bulldozer"},     {cpuinfo_uarch_piledriver, "piledriver"},
    {cpuinfo_uarch_steamroller, "steamroller"}, {cpuinfo_uarch_excavator, "excavator"},
    {cpuinfo_uarch_jaguar, "jaguar"},           {cpuinfo_uarch_puma, "puma"},
    {cpuinfo_uarch_zen, "zen"},                 {cpuinfo_uarch_zen2, "zen2"},
    {cpuinfo_uarch_zen3, "zen3"},               {cpuinfo_uarch_dhyana, "dhyana"},
    {cpuinfo_uarch_cortex_a53, "cortex_a53"},   {cpuinfo_uarch_cortex_a55, "cortex_a55"},
    {cpuinfo_uarch_cortex_a57, "cortex_a57"},   {cpuinfo_uarch_cortex_a72, "cortex_a72"},
    {cpuinfo_uarch_cortex_a73, "cortex_a73"},   {cpuinfo_uarch_cortex_a75, "cortex_a75"},
    {cpuinfo_uarch_cortex_a76, "cortex_a76"},   {cpuinfo_uarch_cortex_a77, "cortex_a77"},
    {cpuinfo_uarch_cortex_a78, "cortex_a78"},   {cpuinfo_uarch_cortex_x1, "cortex_x1"},
    {cpuinfo_uarch_neoverse_n1, "neoverse_n1"}, {cpuinfo_uarch_neoverse_e1, "neoverse_e1"},
    {cpuinfo_uarch_neoverse_v1, "neoverse_v1"}, {cpuinfo_uarch_neoverse_n2, "neoverse_n2"},
    {cpuinfo_uarch_thunderx2, "thunderx2"},     {cpuinfo_uarch_firestorm, "firestorm"},
    {cpuinfo_uarch_icestorm, "icestorm"},       {cpuinfo_uarch_carmel, "carmel"},
}};

std::string uarch_name(cpuinfo_uarch uarch) {
  for (const auto& [value, name] : kUarchNames) {
    if (value == uarch) return name;
  }
  return {};
}

void add_if(CpuFeatureSet& set, bool present, CpuFeature feature) {
  if (present) set.insert(feature);
}

CpuFeatureSet detect_features() {
  CpuFeatureSet f;
#if CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
  add_if(f, cpuinfo_has_x86_sse2(), CpuFeature::SSE2);
  add_if(f, cpuinfo_has_x86_sse3(), CpuFeature::SSE3);
  add_if(f, cpuinfo_has_x86_ssse3(), CpuFeature::SSSE3);
  add_if(f, cpuinfo_has_x86_sse4_1(), CpuFeature::SSE4_1);
  add_if(f, cpuinfo_has_x86_sse4_2(), CpuFeature::SSE4_2);
  add_if(f, cpuinfo_has_x86_popcnt(), CpuFeature::POPCNT);
  add_if(f, cpuinfo_has_x86_avx(), CpuFeature::AVX);
  add_if(f, cpuinfo_has_x86_f16c(), CpuFeature::F16C);
  add_if(f, cpuinfo_has_x86_fma3(), CpuFeature::FMA);
  add_if(f, cpuinfo_has_x86_bmi(), CpuFeature::BMI1);
  add_if(f, cpuinfo_has_x86_bmi2(), CpuFeature::BMI2);
  add_if(f, cpuinfo_has_x86_avx2(), CpuFeature::AVX2);
  add_if(f, cpuinfo_has_x86_avx512f(), CpuFeature::AVX512F);
  add_if(f, cpuinfo_has_x86_avx512cd(), CpuFeature::AVX512CD);
  add_if(f, cpuinfo_has_x86_avx512dq(), CpuFeature::AVX512DQ);
  add_if(f, cpuinfo_has_x86_avx512bw(), CpuFeature::AVX512BW);
  add_if(f, cpuinfo_has_x86_avx512vl(), CpuFeature::AVX512VL);
  add_if(f, cpuinfo_has_x86_avx512vnni(), CpuFeature::AVX512VNNI);
  add_if(f, cpuinfo_has_x86_avx512bf16(), CpuFeature::AVX512BF16);
#endif
#if defined(__x86_64__) || defined(__i386__)
  // CPUID leaf 7: AVX-VNNI (subleaf 1 EAX bit 4) needs the AVX state enabled
  // by the OS, AMX (subleaf 0 EDX bits 24, 25, 22) needs the tile state
  // (XCR0 bits 17 and 18).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf >= 7 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 27))) {
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    const bool avx_state = (xcr0_low & 0x6u) == 0x6u;
    const bool tile_state = (xcr0_low & (3u << 17)) == (3u << 17);
    unsigned a0 = 0, b0 = 0, c0 = 0, d0 = 0, a1 = 0, b1 = 0, c1 = 0, d1 = 0;
    __cpuid_count(7, 0, a0, b0, c0, d0);
    __cpuid_count(7, 1, a1, b1, c1, d1);
    add_if(f, avx_state && (a1 & (1u << 4)), CpuFeature::AVX_VNNI);
    add_if(f, tile_state && (d0 & (1u << 24)), CpuFeature::AMX);
    add_if(f, tile_state && (d0 & (1u << 25)), CpuFeature::AMX_INT8);
    add_if(f, tile_state && (d0 & (1u << 22)), CpuFeature::AMX_BF16);
  }
#endif
#if CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
  add_if(f, cpuinfo_has_arm_neon(), CpuFeature::NEON);
  add_if(f, cpuinfo_has_arm_neon_dot(), CpuFeature::NEON_DOTPROD);
  add_if(f, cpuinfo_has_arm_sve(), CpuFeature::SVE);
  add_if(f, cpuinfo_has_arm_sve2(), CpuFeature::SVE2);
#endif
  return f;
}

void read_identity(CpuDescriptor& cpu) {
  const cpuinfo_core* core = cpuinfo_get_core(0);
  if (core == nullptr) return;
  cpu.vendor = vendor_name(core->vendor);
  cpu.microarchitecture = uarch_name(core->uarch);
#if CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
  if (core->cpuid != 0) {
    X86Signature s = decode_x86_signature(core->cpuid);
    cpu.family = s.family;
    cpu.model = s.model;
    cpu.stepping = s.stepping;
  }
#elif CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
  if (core->midr != 0) {
    ArmMidr m = decode_arm_midr(core->midr);
    cpu.family = m.implementer;
    cpu.model = m.part;
    cpu.stepping = (m.variant << 4) | m.revision;
    if (cpu.vendor.empty()) cpu.vendor = std::string(arm_implementer_name(m.implementer));
  }
#endif
  if (const cpuinfo_package* package = cpuinfo_get_package(0)) cpu.model_name = package->name;
}

void read_caches(CpuDescriptor& cpu) {
  if (const cpuinfo_cache* l1d = cpuinfo_get_l1d_cache(0); l1d && l1d->size) {
    cpu.l1_data_bytes = l1d->size;
    cpu.l1_data_instances = cpuinfo_get_l1d_caches_count();
    if (l1d->line_size) cpu.cache_line_bytes = l1d->line_size;
  }
  if (const cpuinfo_cache* l2 = cpuinfo_get_l2_cache(0); l2 && l2->size) {
    cpu.l2_bytes = l2->size;
    cpu.l2_instances = cpuinfo_get_l2_caches_count();
  }
  if (const cpuinfo_cache* l3 = cpuinfo_get_l3_cache(0); l3 && l3->size) {
    cpu.l3_bytes = l3->size;
    cpu.l3_instances = cpuinfo_get_l3_caches_count();
  }
  if (cpuinfo_get_cores_count() > 0) cpu.physical_cores = cpuinfo_get_cores_count();
  if (cpuinfo_get_processors_count() > 0) cpu.logical_cores = cpuinfo_get_processors_count();
}

// hwloc reads the OS topology (sysfs) and fills what cpuinfo left unknown.
void fill_from_hwloc(CpuDescriptor& cpu) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return;
  if (hwloc_topology_load(topology) == 0) {
    auto count = [&](hwloc_obj_type_t type) -> std::optional<std::uint32_t> {
      int n = hwloc_get_nbobjs_by_type(topology, type);
      if (n > 0) return static_cast<std::uint32_t>(n);
      return std::nullopt;
    };
    auto cache = [&](hwloc_obj_type_t type, std::optional<std::size_t>& bytes,
                     std::optional<std::uint32_t>& instances) {
      if (bytes) return;
      hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, 0);
      if (obj && obj->attr && obj->attr->cache.size) {
        bytes = static_cast<std::size_t>(obj->attr->cache.size);
        instances = count(type);
        if (!cpu.cache_line_bytes && obj->attr->cache.linesize > 0) {
          cpu.cache_line_bytes = static_cast<std::size_t>(obj->attr->cache.linesize);
        }
      }
    };
    cache(HWLOC_OBJ_L1CACHE, cpu.l1_data_bytes, cpu.l1_data_instances);
    cache(HWLOC_OBJ_L2CACHE, cpu.l2_bytes, cpu.l2_instances);
    cache(HWLOC_OBJ_L3CACHE, cpu.l3_bytes, cpu.l3_instances);
    if (!cpu.physical_cores) cpu.physical_cores = count(HWLOC_OBJ_CORE);
    if (!cpu.logical_cores) cpu.logical_cores = count(HWLOC_OBJ_PU);
  }
  hwloc_topology_destroy(topology);
}

}  // namespace

CpuDescriptor detect_cpu_descriptor() {
  CpuDescriptor cpu;
  cpu.architecture = machine_architecture();
  if (cpuinfo_initialize()) {
    read_identity(cpu);
    cpu.microarchitecture = resolve_microarchitecture(cpu);
    cpu.features = detect_features();
    read_caches(cpu);
  } else {
    log::warn("platform: cpuinfo could not read this processor; identity fields stay unknown");
  }
  fill_from_hwloc(cpu);
  return cpu;
}

}  // namespace tunekit::platform
