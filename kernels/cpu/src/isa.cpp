// Choosing the instruction-set path once, from the processor's features.
#include "tunekit/cpu/isa.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "tunekit/core/log.hpp"

namespace tunekit::cpu {
namespace {

using platform::CpuFeature;

// kUndecided until the first active_isa(); then one of the paths.
constexpr int kUndecided = -1;
std::atomic<int> g_active{kUndecided};
std::once_flag g_decided;

CpuIsa decide() noexcept {
  const platform::CpuDescriptor cpu = platform::detect_cpu_descriptor();
  CpuIsa isa = best_isa(cpu);
  if (const char* requested = std::getenv(kIsaVariable); requested && *requested) {
    const std::optional<CpuIsa> lowered = parse_cpu_isa(requested);
    if (!lowered) {
      log::warn("{}={}: not one of portable, avx2, avx512; using {}", kIsaVariable, requested, to_string(isa));
    } else if (!can_run(*lowered, cpu)) {
      log::warn("{}={}: this processor cannot run it; using {}", kIsaVariable, requested, to_string(isa));
    } else {
      isa = *lowered;
    }
  }
  return isa;
}

}  // namespace

std::string_view to_string(CpuIsa isa) noexcept {
  switch (isa) {
    case CpuIsa::PORTABLE: return "portable";
    case CpuIsa::AVX2: return "avx2";
    case CpuIsa::AVX512: return "avx512";
  }
  return "portable";
}

std::optional<CpuIsa> parse_cpu_isa(std::string_view name) noexcept {
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (name == to_string(isa)) return isa;
  }
  return std::nullopt;
}

bool can_run(CpuIsa isa, const platform::CpuDescriptor& cpu) noexcept {
  const platform::CpuFeatureSet& f = cpu.features;
  const bool avx2 = f.contains(CpuFeature::AVX2) && f.contains(CpuFeature::FMA) && f.contains(CpuFeature::F16C);
  switch (isa) {
    case CpuIsa::PORTABLE: return true;
    case CpuIsa::AVX2: return avx2;
    case CpuIsa::AVX512:
      return avx2 && f.contains(CpuFeature::AVX512F) && f.contains(CpuFeature::AVX512BW) &&
             f.contains(CpuFeature::AVX512VL) && f.contains(CpuFeature::AVX512DQ);
  }
  return false;
}

CpuIsa best_isa(const platform::CpuDescriptor& cpu) noexcept {
  if (can_run(CpuIsa::AVX512, cpu)) return CpuIsa::AVX512;
  if (can_run(CpuIsa::AVX2, cpu)) return CpuIsa::AVX2;
  return CpuIsa::PORTABLE;
}

CpuIsa active_isa() noexcept {
  int isa = g_active.load(std::memory_order_relaxed);
  if (isa == kUndecided) {
    std::call_once(g_decided, [] {
      int expected = kUndecided;
      g_active.compare_exchange_strong(expected, static_cast<int>(decide()));
    });
    isa = g_active.load(std::memory_order_relaxed);
  }
  return static_cast<CpuIsa>(isa);
}

Result<ScopedIsa> ScopedIsa::force(CpuIsa isa) {
  if (!can_run(isa, platform::detect_cpu_descriptor())) {
    return Error(ErrorCode::NOT_SUPPORTED, fmt::format("this processor cannot run the {} path", to_string(isa)));
  }
  const CpuIsa previous = active_isa();
  g_active.store(static_cast<int>(isa), std::memory_order_relaxed);
  return ScopedIsa(previous);
}

ScopedIsa::ScopedIsa(ScopedIsa&& other) noexcept : previous_(other.previous_), active_(other.active_) {
  other.active_ = false;
}

ScopedIsa::~ScopedIsa() {
  if (active_) g_active.store(static_cast<int>(previous_), std::memory_order_relaxed);
}

}  // namespace tunekit::cpu
