// Matching, specificity and overlap of CpuSelector.
#include "tunekit/tuning/cpu_selector.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::tuning {
namespace {

template <typename T>
bool compatible(const std::optional<T>& a, const std::optional<T>& b) {
  return !a || !b || *a == *b;
}

bool set_contains(const std::vector<std::uint32_t>& values, std::uint32_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::string text(const std::optional<std::uint32_t>& value) {
  return value ? std::to_string(*value) : std::string("unknown");
}

std::string text(const std::string& value) { return value.empty() ? std::string("unknown") : value; }

}  // namespace

std::string_view to_string(SpecificityLevel level) noexcept {
  switch (level) {
    case SpecificityLevel::PORTABLE_DEFAULT: return "portable_default";
    case SpecificityLevel::INSTRUCTION_SET: return "instruction_set";
    case SpecificityLevel::PROCESSOR_GROUP: return "processor_group";
    case SpecificityLevel::EXACT_PROCESSOR: return "exact_processor";
  }
  return "unknown";
}

std::string CpuSelector::to_string() const {
  std::vector<std::string> parts;
  if (architecture) parts.push_back("architecture=" + *architecture);
  if (vendor) parts.push_back("vendor=" + *vendor);
  if (family) parts.push_back(fmt::format("family={}", *family));
  if (!models.empty()) parts.push_back(fmt::format("models=[{}]", fmt::join(models, ",")));
  if (stepping) parts.push_back(fmt::format("stepping={}", *stepping));
  if (microarchitecture) parts.push_back("uarch=" + *microarchitecture);
  if (!required_features.empty()) parts.push_back("requires=" + required_features.to_string());
  if (!excluded_features.empty()) parts.push_back("excludes=" + excluded_features.to_string());
  if (minimum_threads || maximum_threads) {
    parts.push_back(fmt::format("threads={}..{}", minimum_threads.value_or(1),
                                maximum_threads ? std::to_string(*maximum_threads) : std::string("")));
  }
  return parts.empty() ? std::string("any") : fmt::format("{}", fmt::join(parts, " "));
}

Specificity specificity(const CpuSelector& s) noexcept {
  if (s.vendor && s.family && s.models.size() == 1) {
    return {SpecificityLevel::EXACT_PROCESSOR, s.stepping ? 1 : 0};
  }
  if (s.family && s.models.size() > 1) {
    // 3,000,000 - n keeps any model list above a microarchitecture and a
    // shorter list above a longer one.
    return {SpecificityLevel::PROCESSOR_GROUP, 3'000'000 - static_cast<int>(std::min<std::size_t>(s.models.size(), 1'000'000))};
  }
  if (s.microarchitecture) return {SpecificityLevel::PROCESSOR_GROUP, 1'000'000};
  if (s.family) return {SpecificityLevel::PROCESSOR_GROUP, 0};
  return {SpecificityLevel::INSTRUCTION_SET, static_cast<int>(s.required_features.size())};
}

Error validate(const CpuSelector& s) {
  auto invalid = [&](std::string message) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("selector {}: {}", s.to_string(), message));
  };
  if (s.stepping && s.models.size() != 1) return invalid("stepping needs exactly one model");
  if (!s.models.empty() && !s.family) return invalid("models need a family");
  if (s.models.size() == 1 && !s.vendor) return invalid("an exact model needs a vendor");
  for (platform::CpuFeature f : platform::all_cpu_features()) {
    if (s.required_features.contains(f) && s.excluded_features.contains(f)) {
      return invalid(fmt::format("feature {} is both required and excluded", platform::to_string(f)));
    }
  }
  if (s.minimum_threads && s.maximum_threads && *s.minimum_threads > *s.maximum_threads) {
    return invalid(fmt::format("minimum_threads {} is above maximum_threads {}", *s.minimum_threads,
                               *s.maximum_threads));
  }
  if (s.maximum_threads && *s.maximum_threads == 0) return invalid("maximum_threads must be positive");
  return Error::ok();
}

bool matches(const CpuSelector& s, const platform::CpuExecutionDescriptor& execution, std::string* reason) {
  const platform::CpuDescriptor& cpu = execution.processor;
  auto reject = [&](std::string why) {
    if (reason) *reason = std::move(why);
    return false;
  };
  if (s.architecture && *s.architecture != cpu.architecture) {
    return reject(fmt::format("architecture {} != {}", text(cpu.architecture), *s.architecture));
  }
  if (s.vendor && *s.vendor != cpu.vendor) {
    return reject(fmt::format("vendor {} != {}", text(cpu.vendor), *s.vendor));
  }
  // An unknown family, model or stepping never matches a selector that names
  // one: unknown is not a wildcard.
  if (s.family && cpu.family != s.family) {
    return reject(fmt::format("family {} != {}", text(cpu.family), *s.family));
  }
  if (!s.models.empty() && (!cpu.model || !set_contains(s.models, *cpu.model))) {
    return reject(fmt::format("model {} not in [{}]", text(cpu.model), fmt::join(s.models, ",")));
  }
  if (s.stepping && cpu.stepping != s.stepping) {
    return reject(fmt::format("stepping {} != {}", text(cpu.stepping), *s.stepping));
  }
  if (s.microarchitecture && *s.microarchitecture != cpu.microarchitecture) {
    return reject(fmt::format("microarchitecture {} != {}", text(cpu.microarchitecture),
                              *s.microarchitecture));
  }
  for (platform::CpuFeature f : platform::all_cpu_features()) {
    if (s.required_features.contains(f) && !cpu.features.contains(f)) {
      return reject(fmt::format("required feature {} missing", platform::to_string(f)));
    }
    if (s.excluded_features.contains(f) && cpu.features.contains(f)) {
      return reject(fmt::format("excluded feature {} present", platform::to_string(f)));
    }
  }
  if (s.minimum_threads && execution.effective_threads < *s.minimum_threads) {
    return reject(fmt::format("effective threads {} below minimum {}", execution.effective_threads,
                              *s.minimum_threads));
  }
  if (s.maximum_threads && execution.effective_threads > *s.maximum_threads) {
    return reject(fmt::format("effective threads {} above maximum {}", execution.effective_threads,
                              *s.maximum_threads));
  }
  return true;
}

bool may_overlap(const CpuSelector& a, const CpuSelector& b) noexcept {
  if (!compatible(a.architecture, b.architecture) || !compatible(a.vendor, b.vendor) ||
      !compatible(a.family, b.family) || !compatible(a.microarchitecture, b.microarchitecture)) {
    return false;
  }
  if (!a.models.empty() && !b.models.empty()) {
    bool common = false;
    for (std::uint32_t m : a.models) common = common || set_contains(b.models, m);
    if (!common) return false;
  }
  if (a.stepping && b.stepping && *a.stepping != *b.stepping) return false;
  for (platform::CpuFeature f : platform::all_cpu_features()) {
    if ((a.required_features.contains(f) && b.excluded_features.contains(f)) ||
        (b.required_features.contains(f) && a.excluded_features.contains(f))) {
      return false;
    }
  }
  const std::uint32_t low = std::max(a.minimum_threads.value_or(0), b.minimum_threads.value_or(0));
  const std::uint32_t high = std::min(a.maximum_threads.value_or(UINT32_MAX), b.maximum_threads.value_or(UINT32_MAX));
  return low <= high;
}

}  // namespace tunekit::tuning
