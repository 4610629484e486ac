// Binds a kernel's typed configuration struct to its parameter names. The
// struct's member initializers are the portable defaults; the binding
// derives the schema from a default-constructed struct (so the two cannot
// disagree) and applies a validated parameter set to a copy of it.
//
//   struct AbsTuning { std::int64_t parallel_minimum_elements = 1 << 20; };
//   const auto binding = TuningBinding<AbsTuning>().field(
//       "parallel.minimum_elements", &AbsTuning::parallel_minimum_elements, FieldRules().at_least(1));
#pragma once

#include <cstdint>
#include <string>
#include <functional>
#include <type_traits>
#include <vector>

#include "tunekit/tuning/kernel_tuning_schema.hpp"

namespace tunekit::tuning {

// The rules of one field; the type and default come from the struct.
// Chainable: FieldRules().at_least(1).at_most(4096).multiple(8).
struct FieldRules {
  std::optional<double> minimum;
  std::optional<double> maximum;
  std::optional<std::int64_t> multiple_of;
  std::vector<std::string> allowed;
  bool required = false;
  std::string description;

  FieldRules& at_least(double value) { minimum = value; return *this; }
  FieldRules& at_most(double value) { maximum = value; return *this; }
  FieldRules& multiple(std::int64_t value) { multiple_of = value; return *this; }
  FieldRules& one_of(std::vector<std::string> values) { allowed = std::move(values); return *this; }
  FieldRules& must_be_given() { required = true; return *this; }
  FieldRules& describe(std::string text) { description = std::move(text); return *this; }
};

template <typename Config>
class TuningBinding {
 public:
  // Binds a member of type int64_t, double, bool or std::string.
  template <typename T>
  TuningBinding& field(std::string name, T Config::*member, FieldRules rules = {}) {
    static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, double> || std::is_same_v<T, bool> ||
                      std::is_same_v<T, std::string>,
                  "tuning fields are int64_t, double, bool or std::string");
    Field f;
    f.name = std::move(name);
    f.rules = std::move(rules);
    f.read = [member](const Config& config) { return core::Value(config.*member); };
    f.write = [member](Config& config, const core::Value& value) { assign(config.*member, value); };
    fields_.push_back(std::move(f));
    return *this;
  }
  TuningBinding& constraint(std::string first, ConstraintKind kind, std::string second) {
    constraints_.push_back({std::move(first), kind, std::move(second)});
    return *this;
  }

  // The schema of `key` with the struct's member initializers as defaults.
  KernelTuningSchema schema(const KernelTuningKey& key) const {
    const Config defaults{};
    std::vector<ParameterSpec> specs;
    for (const Field& f : fields_) {
      ParameterSpec spec;
      spec.name = f.name;
      spec.portable_default = f.read(defaults);
      spec.type = spec.portable_default.type();
      spec.minimum = f.rules.minimum;
      spec.maximum = f.rules.maximum;
      spec.multiple_of = f.rules.multiple_of;
      spec.allowed = f.rules.allowed;
      spec.required = f.rules.required;
      spec.description = f.rules.description;
      specs.push_back(std::move(spec));
    }
    return KernelTuningSchema(key, std::move(specs), constraints_);
  }

  // Validates `parameters` against the schema of their key, then writes every
  // value into `config`. On error `config` is left untouched.
  Error try_validate_and_apply(Config& config, const KernelTuningParameters& parameters) const {
    TUNEKIT_RETURN_IF_ERROR(schema(parameters.key).validate(parameters));
    Config updated = config;
    for (const auto& [name, value] : parameters.values) {
      for (const Field& f : fields_) {
        if (f.name == name) f.write(updated, value);
      }
    }
    config = std::move(updated);
    return Error::ok();
  }

  // The throwing twin, for the places where the specification propagates
  // validation failures.
  void ValidateAndApply(Config& config, const KernelTuningParameters& parameters) const {
    Error e = try_validate_and_apply(config, parameters);
    if (e.is_bad()) throw TuningError(e.message());
  }

 private:
  struct Field {
    std::string name;
    FieldRules rules;
    std::function<core::Value(const Config&)> read;
    std::function<void(Config&, const core::Value&)> write;
  };

  // Values were validated against the schema, so the types match.
  static void assign(std::int64_t& target, const core::Value& v) { target = *v.as_int(); }
  static void assign(double& target, const core::Value& v) { target = *v.as_double(); }
  static void assign(bool& target, const core::Value& v) { target = *v.as_bool(); }
  static void assign(std::string& target, const core::Value& v) { target = *v.as_string(); }

  std::vector<Field> fields_;
  std::vector<ParameterConstraint> constraints_;
};

}  // namespace tunekit::tuning
