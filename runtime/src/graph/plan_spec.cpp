// Plan spec identity (engine id plus knob settings as a set) and the
// deduplicating list; heuristic mode names.
#include "tunekit/graph/plan_spec.hpp"

#include <algorithm>

namespace tunekit::graph {

std::string_view to_string(HeuristicMode mode) noexcept {
  switch (mode) {
    case HeuristicMode::A: return "a";
    case HeuristicMode::B: return "b";
    case HeuristicMode::FALLBACK: return "fallback";
  }
  return "unknown";
}

bool PlanSpec::same_candidate(const PlanSpec& other) const {
  return engine_id == other.engine_id &&
         canonical_knob_settings(knob_settings) == canonical_knob_settings(other.knob_settings);
}

bool PlanSpecList::add(PlanSpec spec) {
  const bool present = std::any_of(specs_.begin(), specs_.end(),
                                   [&](const PlanSpec& stored) { return stored.same_candidate(spec); });
  if (present) return false;
  specs_.push_back(std::move(spec));
  return true;
}

std::optional<std::int64_t> PlanSpecList::max_estimated_workspace() const {
  if (specs_.empty()) return std::nullopt;
  std::int64_t largest = specs_.front().estimated_workspace_size;
  for (const auto& spec : specs_) largest = std::max(largest, spec.estimated_workspace_size);
  return largest;
}

}  // namespace tunekit::graph
