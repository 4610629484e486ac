// CPU_CONV_FIND (420): a convolution engine that chooses among the others
// per shape, as a library's "find" call does. It exposes global.benchmarking:
// a plan compiled with it (EXHAUSTIVE autotuning primes one) times each
// candidate on the real buffers when it executes and keeps the fastest for
// the graph and thread count; a plan compiled afterwards runs that choice.
// Without a measured choice it takes the first candidate that applies, in
// this order: oneDNN's auto algorithm, tunekit's direct convolution,
// tunekit's 1x1 Gemm, tunekit's im2col, oneDNN's direct, oneDNN's Winograd. Knob: threads (and global.benchmarking).
// Workspace: a priming plan needs the largest of its candidates'; a plan's
// estimate is its current choice's, which a priming run in between can change
// (compile then reports the new choice's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/graph/engine.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kConvFindEngine = 420;

class ConvFindEngine final : public graph::Engine {
 public:
  struct Candidate {
    std::shared_ptr<const graph::Engine> engine;
    graph::KnobValues knobs;  // every knob of the engine but threads
    std::string name;         // "CPU_CONV_ONEDNN[algorithm=auto]"
    // When set and true for a graph, the heuristic picks this candidate
    // ahead of the order (where it applies): a kind of convolution on which
    // it was measured faster than the candidates before it.
    std::function<bool(const graph::OperationGraph&)> first_for;
  };

  // Candidates in heuristic order.
  explicit ConvFindEngine(std::vector<Candidate> candidates);

  const graph::EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const graph::OperationGraph& graph, const platform::Device& device) const override;
  Result<std::int64_t> estimate_workspace(const graph::OperationGraph& graph,
                                          const graph::KnobValues& knobs) const override;
  Result<std::unique_ptr<graph::ExecutionKernel>> compile(const graph::OperationGraph& graph,
                                                          const graph::KnobValues& knobs,
                                                          platform::Device& device) const override;

  // The candidate a plan for graph with the knob threads = `threads` runs
  // now: the measured one, else the heuristic's; nullopt when none applies.
  std::optional<std::string> choice(const graph::OperationGraph& graph, const platform::Device& device,
                                    int threads) const;
  // Whether that choice was measured (a priming plan ran for this graph).
  bool measured(const graph::OperationGraph& graph, int threads) const;

  // Internal state shared with the priming kernels.
  struct Choices;

 private:
  std::optional<std::size_t> heuristic(const graph::OperationGraph& graph, const platform::Device& device) const;
  std::optional<std::size_t> current(const graph::OperationGraph& graph, const platform::Device& device,
                                     int threads) const;

  graph::EngineDescriptor descriptor_;
  std::vector<Candidate> candidates_;
  std::shared_ptr<Choices> choices_;
};

}  // namespace tunekit::engines
