// One entry of an engine-override file as data: the match key (operation
// string, criteria, tensors), the engine it selects, the knobs to apply and
// tunekit's validators. Version 1 entries match tensors by position,
// version 2 entries by tensor id in any order; -1 in dims or strides matches
// any extent, and absent strides match any strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/graph/knob.hpp"

namespace tunekit::graph {

inline constexpr std::int64_t kOverrideWildcard = -1;

struct OverrideTensor {
  std::string tensor_id;                              // port name ("A", "X"); empty in version 1
  std::vector<std::int64_t> dims;                     // -1: any
  std::optional<std::vector<std::int64_t>> strides;   // absent: any; -1: any

  friend bool operator==(const OverrideTensor&, const OverrideTensor&) = default;
};

// Checks that travel with an entry (fields hipDNN's reader ignores). An
// empty signature or catalogue version checks nothing; the names and the
// tunekit version are for people reading the file.
struct OverrideValidators {
  std::string device_signature;
  std::string device_name;
  std::string tunekit_version;
  std::string engine_provider;
  std::string engine_catalogue_version;

  friend bool operator==(const OverrideValidators&, const OverrideValidators&) = default;
};

// The parts of autotune_metadata that tools show; the knobs are applied.
struct OverrideMetadata {
  std::optional<double> min_time_ms;
  std::string mode;       // "standard", "exhaustive" or empty
  std::string strategy;   // "fixed_average", "run_until_stable" or empty
  std::string timestamp;  // ISO 8601 as written
  // false: the tune that wrote it ran out of its time budget before every
  // candidate was measured (tune --time-budget continues such shapes).
  bool complete = true;

  friend bool operator==(const OverrideMetadata&, const OverrideMetadata&) = default;
};

struct OverrideEntry {
  std::size_t index = 0;  // position in the file's engine_overrides array
  std::string op;         // "matmul", "conv_fprop", ... (unknown strings never match)
  std::optional<std::string> engine_name;
  std::optional<std::int64_t> engine_id;
  std::map<std::string, std::int64_t> criteria;  // each must equal the graph's
  std::vector<OverrideTensor> tensors;
  bool positional = false;          // version 1: tensors[i] is the operation's i-th tensor
  std::vector<KnobSetting> knobs;   // autotune_metadata.knobs; empty: the engine's defaults
  std::optional<OverrideMetadata> metadata;
  std::optional<OverrideValidators> validators;

  // True when a dim or stride is -1.
  bool is_wildcard() const;
  // "'name'", "id 7" or "'name' (id 7)".
  std::string describe_engine() const;

  friend bool operator==(const OverrideEntry&, const OverrideEntry&) = default;
};

}  // namespace tunekit::graph
