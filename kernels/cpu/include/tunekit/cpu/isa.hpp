// The instruction-set path of tunekit_cpu's kernels: AVX-512 (F, BW, VL, DQ
// with FMA and F16C), AVX2 (with FMA and F16C) or the portable C++ path. It is
// chosen once, from the processor's features, the first time a kernel asks,
// and can be lowered (never raised beyond what the processor runs) by the
// environment or forced by tests.
//
// ISA-specific code lives in source files named *_avx512.cpp and *_avx2.cpp,
// which the build compiles with that instruction set enabled. Such a file
// must keep everything it defines in an anonymous namespace except its entry
// points, and must not instantiate templates or inline functions that other
// files also instantiate (standard containers, algorithms, std::function):
// the linker keeps one copy of those, and an AVX-512 copy would then run on
// every processor.
#pragma once

#include <optional>
#include <string_view>

#include "tunekit/core/result.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"

namespace tunekit::cpu {

enum class CpuIsa { PORTABLE = 0, AVX2 = 1, AVX512 = 2 };

// "portable", "avx2", "avx512".
std::string_view to_string(CpuIsa isa) noexcept;
std::optional<CpuIsa> parse_cpu_isa(std::string_view name) noexcept;

// Whether the processor has every feature the path uses.
bool can_run(CpuIsa isa, const platform::CpuDescriptor& cpu) noexcept;
// The widest path the processor runs.
CpuIsa best_isa(const platform::CpuDescriptor& cpu) noexcept;

// Environment variable that lowers the path ("avx2", "portable"); a path the
// processor cannot run, or an unknown name, is ignored with a warning.
inline constexpr const char* kIsaVariable = "TUNEKIT_CPU_ISA";

// The path kernels take: best_isa() of this processor, lowered by
// TUNEKIT_CPU_ISA, decided at the first call. One relaxed atomic load after.
CpuIsa active_isa() noexcept;

// Forces `isa` for the lifetime of the object (tests, calibration per ISA);
// the previous path is restored on destruction. Not thread-safe against
// kernels running at the same time on other threads.
class ScopedIsa {
 public:
  // NOT_SUPPORTED when the processor cannot run `isa`; nothing changes then.
  static Result<ScopedIsa> force(CpuIsa isa);
  ScopedIsa(ScopedIsa&& other) noexcept;
  ScopedIsa& operator=(ScopedIsa&&) = delete;
  ScopedIsa(const ScopedIsa&) = delete;
  ~ScopedIsa();

 private:
  explicit ScopedIsa(CpuIsa previous) noexcept : previous_(previous) {}
  CpuIsa previous_;
  bool active_ = true;
};

}  // namespace tunekit::cpu
