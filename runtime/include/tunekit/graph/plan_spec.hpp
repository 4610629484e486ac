// Plan specs: autotuning candidates stored before anything is compiled. An
// engine config describes an applicable engine; a variant or a sweep asks
// for an engine with chosen knobs; a plan spec is the stored (engine id,
// knob settings) pair, deduplicated regardless of the order knobs were given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/graph/knob.hpp"

namespace tunekit::graph {

// How engine candidates are ordered. A and B follow each engine's declared
// heuristic priority (lower first, ties by registration order); FALLBACK
// keeps registration order. Every mode lists every applicable engine.
enum class HeuristicMode { A, B, FALLBACK };
std::string_view to_string(HeuristicMode mode) noexcept;  // "a", "b", "fallback"

struct EngineConfigInfo {
  std::int64_t engine_id = -1;
  std::string engine_name;
  std::vector<Knob> knobs;                  // informational
  bool supports_exhaustive = false;         // exposes global.benchmarking
  std::int64_t estimated_workspace_size = 0;  // pre-compile estimate with default knobs

  friend bool operator==(const EngineConfigInfo&, const EngineConfigInfo&) = default;
};

struct EngineVariant {
  std::int64_t engine_id = -1;
  std::map<std::string, KnobValue> knob_settings;
};

struct KnobSweepAxis {
  std::string knob_id;
  std::vector<KnobValue> values;
};

struct EngineSweepSpec {
  std::int64_t engine_id = -1;
  std::vector<KnobSweepAxis> axes;                // swept: every combination
  std::map<std::string, KnobValue> fixed_settings;  // held for every combination
};

struct PlanSpec {
  std::int64_t engine_id = -1;
  std::vector<KnobSetting> knob_settings;  // explicitly set knobs; empty = defaults
  std::int64_t estimated_workspace_size = 0;

  // Identity is (engine id, knob settings as a set): the estimate and the
  // order of the settings play no part.
  bool same_candidate(const PlanSpec& other) const;
};

// The ordered, deduplicated list of plan specs of one graph.
class PlanSpecList {
 public:
  // Appends spec unless an equal candidate is stored; returns whether it was added.
  bool add(PlanSpec spec);
  const std::vector<PlanSpec>& specs() const noexcept { return specs_; }
  bool empty() const noexcept { return specs_.empty(); }
  std::size_t size() const noexcept { return specs_.size(); }
  void clear() noexcept { specs_.clear(); }
  // Largest estimate; nullopt when empty.
  std::optional<std::int64_t> max_estimated_workspace() const;

 private:
  std::vector<PlanSpec> specs_;
};

}  // namespace tunekit::graph
