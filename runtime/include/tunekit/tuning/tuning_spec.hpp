// The tuning spec of a kernel library (its tuning.toml): every tunable
// parameter of every kernel implementation with its type, portable default
// and rules. One parsed spec feeds the generated defaults header, validates
// profiles and cache entries, and locates each default in the spec text so
// `tunekit promote` can rewrite exactly those bytes. The format is described
// in README.md ("Tuning spec").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/kernel_tuning_schema.hpp"

namespace tunekit::tuning {

inline constexpr std::int64_t kTuningSpecSchemaVersion = 1;

// A place in the spec text: `offset`/`length` in bytes, `line`/`column`
// 1-based (columns count UTF-8 code points, as toml++ does).
struct SpecTextRange {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::size_t line = 0;
  std::size_t column = 0;
  friend bool operator==(const SpecTextRange&, const SpecTextRange&) = default;
};

struct TuningSpecParameter {
  ParameterSpec spec;          // name, type, portable default and rules, as the schema holds them
  std::string member;          // C++ member name in the generated struct
  SpecTextRange default_text;  // where the default's value is written
  std::size_t line = 0;        // the parameter's table
};

struct TuningSpecKernel {
  std::string kernel;                    // "Abs"
  std::vector<DataType> element_types;   // in DataType order, no duplicates
  std::size_t line = 0;
};

// One implementation and its parameter set, shared by every kernel it lists
// (each kernel and element type is one key with the same parameters).
struct TuningSpecImplementation {
  std::string name;            // C++ base name: struct <Name>Tuning, <name>_binding()
  std::string implementation;  // the key's implementation, "openmp_simd"
  platform::DeviceKind device = platform::DeviceKind::CPU;
  std::string description;
  std::vector<TuningSpecKernel> kernels;  // sorted by kernel name
  std::vector<TuningSpecParameter> parameters;  // in spec order
  std::vector<ParameterConstraint> constraints;  // in spec order
  std::size_t line = 0;
};

struct TuningSpec {
  std::string source;  // the file name errors and generated banners use
  std::int64_t schema_version = kTuningSpecSchemaVersion;
  std::string library;          // "tunekit_cpu"
  std::string library_version;  // "0.1.0"
  std::uint32_t tuning_abi = 1;
  std::string cpp_namespace;    // "tunekit::cpu"
  std::vector<TuningSpecImplementation> implementations;  // sorted by name

  // The key of `kernel` for `type` on the implementation's device.
  KernelTuningKey key(const TuningSpecImplementation& implementation, const TuningSpecKernel& kernel,
                      DataType type) const;
  // Every key the spec declares, sorted.
  std::vector<KernelTuningKey> keys() const;
  // The schema of every key, sorted by key.
  std::vector<KernelTuningSchema> schemas() const;
  // The implementation that declares `key` (library, kernel, implementation,
  // element type, device and ABI all equal), or nullptr.
  const TuningSpecImplementation* find(const KernelTuningKey& key) const;
  // The schema of `key`, or NOT_SUPPORTED naming the key and the spec.
  Result<KernelTuningSchema> schema(const KernelTuningKey& key) const;
  // Validates a (partial) parameter set of one key: the key must be declared
  // here, and the values must pass the key's schema.
  Error validate(const KernelTuningParameters& parameters) const;
};

// Parses and checks a spec. Errors are INVALID_VALUE with one line
// "<source>:<line>:<column>: <field>: <reason>", the field a path such as
// "implementations[0].parameters[1].default". Checked: required fields and
// their types, unknown fields, identifiers, element types, duplicate kernels,
// element types, parameters and members, rules that fit the type, defaults
// inside their rules, constraints naming known numeric parameters and
// holding on the defaults.
Result<TuningSpec> parse_tuning_spec(std::string_view text, std::string source);
// Reads and parses a spec file (IO_ERROR naming the path when unreadable).
Result<TuningSpec> ReadTuningSpec(const std::filesystem::path& path);

}  // namespace tunekit::tuning
