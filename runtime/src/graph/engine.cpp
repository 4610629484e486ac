// Engine descriptor helpers: exhaustive support, knob lookup, resolution.
#include "tunekit/graph/engine.hpp"

namespace tunekit::graph {

bool EngineDescriptor::supports_exhaustive() const { return find_knob(kBenchmarkingKnob) != nullptr; }

const Knob* EngineDescriptor::find_knob(std::string_view id) const {
  for (const auto& knob : knobs) {
    if (knob.id == id) return &knob;
  }
  return nullptr;
}

KnobValues EngineDescriptor::resolve(const std::vector<KnobSetting>& settings) const {
  KnobValues values;
  for (const auto& knob : knobs) values.set(knob.id, knob.default_value);
  for (const auto& setting : settings) values.set(setting.knob_id, setting.value);
  return values;
}

}  // namespace tunekit::graph
