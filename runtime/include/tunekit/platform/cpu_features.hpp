// Instruction-set features of a processor as a small value set with stable,
// persisted names. Selectors and caches compare feature sets, so the names
// never change once written.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tunekit::platform {

enum class CpuFeature : std::uint8_t {
  // x86
  SSE2, SSE3, SSSE3, SSE4_1, SSE4_2, POPCNT, AVX, F16C, FMA, BMI1, BMI2, AVX2,
  AVX512F, AVX512CD, AVX512DQ, AVX512BW, AVX512VL, AVX512VNNI, AVX512BF16, AVX_VNNI,
  AMX, AMX_INT8, AMX_BF16,
  // Arm
  NEON, NEON_DOTPROD, SVE, SVE2,
};

// Stable lower-case name: "sse2", "sse4_1", "avx512vnni", "avx_vnni", "amx",
// "neon", "sve2", ...
std::string_view to_string(CpuFeature feature) noexcept;
std::optional<CpuFeature> parse_cpu_feature(std::string_view name) noexcept;
std::span<const CpuFeature> all_cpu_features() noexcept;

class CpuFeatureSet {
 public:
  CpuFeatureSet() = default;
  CpuFeatureSet(std::initializer_list<CpuFeature> features);

  bool contains(CpuFeature feature) const noexcept { return (bits_ >> bit(feature)) & 1u; }
  void insert(CpuFeature feature) noexcept { bits_ |= std::uint64_t{1} << bit(feature); }
  bool empty() const noexcept { return bits_ == 0; }
  std::size_t size() const noexcept;
  // True when every feature of this set is also in `other`.
  bool is_subset_of(const CpuFeatureSet& other) const noexcept { return (bits_ & ~other.bits_) == 0; }

  // Names sorted alphabetically, the form written to files and hashed into
  // identities.
  std::vector<std::string> names() const;
  // Comma-separated sorted names.
  std::string to_string() const;
  // Parses names; an unknown name is returned through `unknown` (when given)
  // and makes the result nullopt.
  static std::optional<CpuFeatureSet> parse(std::span<const std::string> names,
                                            std::string* unknown = nullptr);

  friend bool operator==(const CpuFeatureSet&, const CpuFeatureSet&) = default;

 private:
  static unsigned bit(CpuFeature feature) noexcept { return static_cast<unsigned>(feature); }
  std::uint64_t bits_ = 0;
};

}  // namespace tunekit::platform
