// What a kernel accepts for one key: every parameter with its type, portable
// default and rules, plus ordering constraints between two parameters (for
// example tile_m <= tile_n). Profiles, caches and overrides are validated
// against it when they are registered or loaded, never in the hot path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/value.hpp"
#include "tunekit/tuning/kernel_tuning_parameters.hpp"

namespace tunekit::tuning {

struct ParameterSpec {
  std::string name;              // "parallel.minimum_elements"
  core::ValueType type = core::ValueType::INT64;
  core::Value portable_default;  // the compiled value; must satisfy every rule below
  std::optional<double> minimum;  // inclusive, numeric parameters only
  std::optional<double> maximum;  // inclusive, numeric parameters only
  std::optional<std::int64_t> multiple_of;  // integer parameters only
  std::vector<std::string> allowed;  // string parameters: the accepted values (empty: any)
  bool required = false;  // a profile must name it (it cannot inherit the default)
  std::string description;
  friend bool operator==(const ParameterSpec&, const ParameterSpec&) = default;
};

enum class ConstraintKind {
  LESS_EQUAL,  // first <= second
  LESS,        // first < second
  DIVIDES,     // second % first == 0 (integers)
};

struct ParameterConstraint {
  std::string first;
  ConstraintKind kind = ConstraintKind::LESS_EQUAL;
  std::string second;
  std::string to_string() const;  // "algorithm.tile_m <= algorithm.tile_k"
  friend bool operator==(const ParameterConstraint&, const ParameterConstraint&) = default;
};

class KernelTuningSchema {
 public:
  KernelTuningSchema() = default;
  KernelTuningSchema(KernelTuningKey key, std::vector<ParameterSpec> parameters,
                     std::vector<ParameterConstraint> constraints = {});

  const KernelTuningKey& key() const noexcept { return key_; }
  const std::vector<ParameterSpec>& parameters() const noexcept { return parameters_; }
  const std::vector<ParameterConstraint>& constraints() const noexcept { return constraints_; }
  const ParameterSpec* find(std::string_view name) const noexcept;

  // Checks the schema itself: unique names, rules that fit the type, and
  // portable defaults that satisfy every rule and constraint.
  Error validate_schema() const;

  // Checks a (possibly partial) profile: its key equals the schema's, every
  // name is known, types match exactly, values respect their rules, required
  // parameters are present, and the constraints hold on the values merged
  // over the defaults. The message names key, parameter and value.
  Error validate(const KernelTuningParameters& parameters) const;

  // The complete parameter set: defaults overwritten by `overlay` (assumed
  // validated).
  KernelTuningParameters merge(const KernelTuningParameters& overlay) const;
  KernelTuningParameters defaults() const;

  friend bool operator==(const KernelTuningSchema&, const KernelTuningSchema&) = default;

 private:
  Error check_value(const ParameterSpec& spec, const core::Value& value) const;
  Error check_constraints(const std::map<std::string, core::Value>& merged) const;

  KernelTuningKey key_;
  std::vector<ParameterSpec> parameters_;
  std::vector<ParameterConstraint> constraints_;
};

}  // namespace tunekit::tuning
