// Names of CPU features and the sorted text form of a feature set.
#include "tunekit/platform/cpu_features.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace tunekit::platform {
namespace {

struct FeatureName {
  CpuFeature feature;
  std::string_view name;
};

constexpr std::array<FeatureName, 27> kNames{{
    {CpuFeature::SSE2, "sse2"},           {CpuFeature::SSE3, "sse3"},
    {CpuFeature::SSSE3, "ssse3"},         {CpuFeature::SSE4_1, "sse4_1"},
    {CpuFeature::SSE4_2, "sse4_2"},       {CpuFeature::POPCNT, "popcnt"},
    {CpuFeature::AVX, "avx"},             {CpuFeature::F16C, "f16c"},
    {CpuFeature::FMA, "fma"},             {CpuFeature::BMI1, "bmi1"},
    {CpuFeature::BMI2, "bmi2"},           {CpuFeature::AVX2, "avx2"},
    {CpuFeature::AVX512F, "avx512f"},     {CpuFeature::AVX512CD, "avx512cd"},
    {CpuFeature::AVX512DQ, "avx512dq"},   {CpuFeature::AVX512BW, "avx512bw"},
    {CpuFeature::AVX512VL, "avx512vl"},   {CpuFeature::AVX512VNNI, "avx512vnni"},
    {CpuFeature::AVX512BF16, "avx512bf16"}, {CpuFeature::AVX_VNNI, "avx_vnni"},
    {CpuFeature::AMX, "amx"},             {CpuFeature::AMX_INT8, "amx_int8"},
    {CpuFeature::AMX_BF16, "amx_bf16"},   {CpuFeature::NEON, "neon"},
    {CpuFeature::NEON_DOTPROD, "neon_dotprod"}, {CpuFeature::SVE, "sve"},
    {CpuFeature::SVE2, "sve2"},
}};

constexpr std::array<CpuFeature, kNames.size()> make_all() {
  std::array<CpuFeature, kNames.size()> all{};
  for (std::size_t i = 0; i < kNames.size(); ++i) all[i] = kNames[i].feature;
  return all;
}
constexpr std::array<CpuFeature, kNames.size()> kAll = make_all();

}  // namespace

std::string_view to_string(CpuFeature feature) noexcept {
  for (const auto& entry : kNames) {
    if (entry.feature == feature) return entry.name;
  }
  return "unknown";
}

std::optional<CpuFeature> parse_cpu_feature(std::string_view name) noexcept {
  for (const auto& entry : kNames) {
    if (entry.name == name) return entry.feature;
  }
  return std::nullopt;
}

std::span<const CpuFeature> all_cpu_features() noexcept { return kAll; }

CpuFeatureSet::CpuFeatureSet(std::initializer_list<CpuFeature> features) {
  for (CpuFeature f : features) insert(f);
}

std::size_t CpuFeatureSet::size() const noexcept {
  return static_cast<std::size_t>(std::popcount(bits_));
}

std::vector<std::string> CpuFeatureSet::names() const {
  std::vector<std::string> result;
  for (const auto& entry : kNames) {
    if (contains(entry.feature)) result.emplace_back(entry.name);
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::string CpuFeatureSet::to_string() const {
  std::string text;
  for (const std::string& name : names()) {
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

std::optional<CpuFeatureSet> CpuFeatureSet::parse(std::span<const std::string> names,
                                                  std::string* unknown) {
  CpuFeatureSet set;
  for (const std::string& name : names) {
    auto feature = parse_cpu_feature(name);
    if (!feature) {
      if (unknown) *unknown = name;
      return std::nullopt;
    }
    set.insert(*feature);
  }
  return set;
}

}  // namespace tunekit::platform
