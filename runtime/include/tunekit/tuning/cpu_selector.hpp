// Which processors (and thread counts) a profile applies to, and how
// specific that claim is. Matching and ordering are pure functions of the
// selector and a descriptor, so tests can match imaginary processors.
//
// Specificity, a total order from most to least specific:
//   EXACT_PROCESSOR   vendor, family and exactly one model; a given stepping
//                     ranks above no stepping.
//   PROCESSOR_GROUP   a list of models (fewer models rank higher), then a
//                     microarchitecture, then a whole family.
//   INSTRUCTION_SET   only architecture, vendor and feature requirements;
//                     more required features rank higher.
//   PORTABLE_DEFAULT  (no profile: the compiled defaults)
// Priority orders only profiles of equal specificity; two profiles of equal
// specificity and priority that could match one processor are ambiguous.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/platform/execution_descriptor.hpp"

namespace tunekit::tuning {

struct CpuSelector {
  std::optional<std::string> architecture;
  std::optional<std::string> vendor;
  std::optional<std::uint32_t> family;
  std::vector<std::uint32_t> models;  // empty: every model
  std::optional<std::uint32_t> stepping;  // only with exactly one model
  std::optional<std::string> microarchitecture;
  platform::CpuFeatureSet required_features;
  platform::CpuFeatureSet excluded_features;
  std::optional<std::uint32_t> minimum_threads;
  std::optional<std::uint32_t> maximum_threads;

  // "vendor=AMD family=25 models=[1] threads=1..8"
  std::string to_string() const;
  friend bool operator==(const CpuSelector&, const CpuSelector&) = default;
};

enum class SpecificityLevel { PORTABLE_DEFAULT = 0, INSTRUCTION_SET = 1, PROCESSOR_GROUP = 2, EXACT_PROCESSOR = 3 };
std::string_view to_string(SpecificityLevel level) noexcept;

struct Specificity {
  SpecificityLevel level = SpecificityLevel::PORTABLE_DEFAULT;
  int rank = 0;  // the order inside a level; higher is more specific
  friend std::strong_ordering operator<=>(const Specificity&, const Specificity&) = default;
};

Specificity specificity(const CpuSelector& selector) noexcept;

// Rejects selectors that cannot mean anything: a stepping without exactly one
// model, models without a family, a feature both required and excluded,
// minimum threads above maximum. The message names the field.
Error validate(const CpuSelector& selector);

// True when the selector accepts the execution; otherwise `reason` (when
// given) names the first field that differs, with both values.
bool matches(const CpuSelector& selector, const platform::CpuExecutionDescriptor& execution,
             std::string* reason = nullptr);

// False only when no processor and thread count can satisfy both selectors.
bool may_overlap(const CpuSelector& a, const CpuSelector& b) noexcept;

}  // namespace tunekit::tuning
