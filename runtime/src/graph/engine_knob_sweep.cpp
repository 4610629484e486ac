// The candidates of one engine's knob sweep, within the sweep limit.
#include "tunekit/graph/engine_knob_sweep.hpp"

#include "tunekit/graph/engine_sweep.hpp"

namespace tunekit::graph {
namespace {

// The settings of combination that differ from the defaults.
// (combination holds one setting per knob, in the knobs' order).
EngineVariant variant_of(std::int64_t engine_id, const std::vector<KnobSetting>& combination,
                         const std::vector<KnobSweepValues>& knobs) {
  EngineVariant variant{engine_id, {}};
  for (std::size_t i = 0; i < combination.size(); ++i) {
    if (!(combination[i].value == knobs[i].default_value)) {
      variant.knob_settings.emplace(combination[i].knob_id, combination[i].value);
    }
  }
  return variant;
}

}  // namespace

std::string_view to_string(KnobCombining combining) noexcept {
  switch (combining) {
    case KnobCombining::EVERY_COMBINATION: return "every_combination";
    case KnobCombining::EACH_KNOB_ALONE: return "each_knob_alone";
    case KnobCombining::DEFAULTS_ONLY: return "defaults_only";
  }
  return "unknown";
}

EngineKnobSweep engine_knob_sweep(const EngineConfigInfo& config) {
  EngineKnobSweep sweep;
  sweep.engine_id = config.engine_id;
  sweep.engine_name = config.engine_name;
  std::vector<KnobSweepAxis> axes;
  for (const Knob& knob : config.knobs) {
    if (knob.id == kBenchmarkingKnob) continue;
    sweep.knobs.push_back(knob_sweep_values(knob));
    axes.push_back({knob.id, sweep.knobs.back().values});
  }
  sweep.combinations = cartesian_product_size(axes);

  if (sweep.combinations <= kSweepErrorThreshold) {
    for (const std::vector<KnobSetting>& combination : cartesian_product(axes)) {
      EngineVariant variant = variant_of(config.engine_id, combination, sweep.knobs);
      if (!variant.knob_settings.empty()) sweep.variants.push_back(std::move(variant));
    }
    return sweep;
  }

  std::uint64_t alone = 1;  // the defaults
  for (const KnobSweepValues& knob : sweep.knobs) alone += knob.values.empty() ? 0 : knob.values.size() - 1;
  if (alone > kSweepErrorThreshold) {
    sweep.combining = KnobCombining::DEFAULTS_ONLY;
    return sweep;
  }
  sweep.combining = KnobCombining::EACH_KNOB_ALONE;
  for (const KnobSweepValues& knob : sweep.knobs) {
    for (const KnobValue& value : knob.values) {
      if (!(value == knob.default_value)) sweep.variants.push_back({config.engine_id, {{knob.knob_id, value}}});
    }
  }
  return sweep;
}

}  // namespace tunekit::graph
