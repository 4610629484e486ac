// The knob settings that `tunekit tune` tries for one engine beyond its
// defaults: the combinations of its knobs' sweep values (knob_sweep_values),
// kept within the sweep limit of engine_sweep.hpp, as variants that set only
// the knobs that differ from their defaults.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/graph/knob_sweep_values.hpp"
#include "tunekit/graph/plan_spec.hpp"

namespace tunekit::graph {

enum class KnobCombining {
  EVERY_COMBINATION,  // the cartesian product of the knobs' values
  EACH_KNOB_ALONE,    // the product is above kSweepErrorThreshold: one knob varies, the others keep their defaults
  DEFAULTS_ONLY,      // even that is above kSweepErrorThreshold: only the defaults
};
// "every_combination", "each_knob_alone", "defaults_only"
std::string_view to_string(KnobCombining combining) noexcept;

struct EngineKnobSweep {
  std::int64_t engine_id = -1;
  std::string engine_name;
  std::vector<KnobSweepValues> knobs;  // each knob but global.benchmarking (autotune() sets it), in declared order
  std::uint64_t combinations = 1;      // product of the knobs' value counts, defaults included; saturating
  KnobCombining combining = KnobCombining::EVERY_COMBINATION;
  // The candidates besides the one with every knob at its default (which
  // add_engine_configs/add_all_engines store), each naming only the knobs
  // that differ from their defaults, in odometer order (the last knob
  // varying fastest), none twice.
  std::vector<EngineVariant> variants;
};

// What a sweep of config's knobs tries. With the defaults, the candidates
// number variants.size() + 1: at most kSweepErrorThreshold.
EngineKnobSweep engine_knob_sweep(const EngineConfigInfo& config);

}  // namespace tunekit::graph
