// tune --keep-unless-faster: the winner already stored for a graph keeps its
// place unless this run's fastest candidate is significantly faster than it
// (measure::compare_times says "faster"), so that a retune on a noisy machine
// does not churn a committed override file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/graph/autotune_config.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/measure/comparison.hpp"

namespace tunekit::cli {

// The entry stored for a built graph: its engine and its knobs resolved to
// every knob's value (so stored defaults and explicit defaults are the same).
struct StoredWinner {
  std::int64_t engine_id = -1;
  std::string engine_name;
  graph::KnobValues knobs;
  std::string where;  // "entry 3 of FILE"
  bool complete = true;  // false: its tune ran out of time (autotune_metadata.complete)
};

// The exact entry of `file` for the graph, valid for this device and
// registry; nullopt when the file is missing or unreadable (the writer
// reports that), has no such entry, or its knobs no longer validate.
std::optional<StoredWinner> find_stored_winner(const std::filesystem::path& file, const graph::Graph& graph,
                                               const graph::Handle& handle);

// The stored winner among a shape's ranked results (the fastest first).
struct StoredAgainstFastest {
  const graph::AutotuneResult* stored = nullptr;   // null: it was not among the candidates
  const graph::AutotuneResult* fastest = nullptr;  // null: no candidate succeeded
  // The fastest's samples against the stored winner's; empty when either
  // did not succeed or the stored winner is the fastest.
  std::optional<measure::Comparison> comparison;
};
StoredAgainstFastest find_stored_result(const StoredWinner& stored, const std::vector<graph::AutotuneResult>& results,
                                        const graph::Handle& handle, const measure::ComparisonConfig& comparison);

struct KeepDecision {
  bool keep = false;
  std::string why;  // for standard error and --json; empty when nothing was stored
  const graph::AutotuneResult* kept = nullptr;  // the stored winner's result when it keeps its place
};

// Whether the stored winner keeps its place against `results` (ranked, the
// fastest first): it keeps it when it ran and the fastest is not
// significantly faster; it loses it when it is slower, failed or was not
// among the candidates.
KeepDecision decide_keep(const StoredWinner& stored, const std::vector<graph::AutotuneResult>& results,
                         const graph::Handle& handle, const graph::AutotuneConfig& config);

}  // namespace tunekit::cli
