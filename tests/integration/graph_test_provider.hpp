// An engine provider for integration tests: nine engines that compute a
// float matmul for real on the CPU (each in its own way), covering every
// behaviour autotune must handle: knobs of each type, estimated vs compiled
// workspaces, cache priming, failures, throwing and knob-controlled time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/graph/graph.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::graph::test_provider {

enum EngineId : std::int64_t {
  kNaive = 101,           // knob unroll (int, allowed 1/2/4)
  kTiled = 102,           // knobs tile (int, step 4), accumulate (string), blend (double); workspace per tile
  kCached = 103,          // exposes global.benchmarking: priming fills a packed-B cache
  kAlwaysFails = 104,     // compile always fails
  kFailsWhenPrimed = 105, // exposes global.benchmarking; its priming plan fails to compile
  kWorkspaceGrows = 106,  // estimate 64 bytes, compiled 1 MiB
  kThrows = 107,          // execute throws
  kDelayed = 108,         // knob delay_us (int): busy-waits that long, so the fastest setting is known
  kDoubleAccumulate = 109 // accumulates in double in its workspace (estimate > compiled)
};

// Counters shared by the engines, to see what ran.
struct Counters {
  std::atomic<int> executions[10]{};  // index: id - 100
  std::atomic<int> primed_executions{0};
  std::atomic<int> cache_entries{0};
  int executions_of(std::int64_t id) const { return executions[id - 100].load(); }
};

class TestProvider final : public EngineProvider {
 public:
  TestProvider();
  std::string name() const override { return "tunekit-test-provider"; }
  std::vector<std::shared_ptr<const Engine>> engines() const override { return engines_; }
  Counters& counters() const { return *counters_; }

 private:
  std::shared_ptr<Counters> counters_;
  std::vector<std::shared_ptr<const Engine>> engines_;
};

// A CPU device whose timer reports times quantized to `resolution_ms`, so an
// execution can be far below the timer's resolution as on coarse clocks.
class CoarseTimerDevice final : public platform::Device {
 public:
  explicit CoarseTimerDevice(double resolution_ms) : resolution_ms_(resolution_ms) {}
  platform::DeviceKind kind() const override { return inner_.kind(); }
  std::string name() const override { return "coarse " + inner_.name(); }
  std::string signature() const override { return inner_.signature(); }
  Result<platform::DeviceBuffer> allocate(std::size_t bytes, std::size_t alignment) override {
    return inner_.allocate(bytes, alignment);
  }
  Result<std::unique_ptr<platform::Stream>> create_stream() override { return inner_.create_stream(); }
  Result<std::unique_ptr<platform::Timer>> create_timer(platform::Stream& stream) override;
  Error synchronize() override { return inner_.synchronize(); }

 private:
  platform::CpuDevice inner_;
  double resolution_ms_;
};

// The problem the workflows tune: C[M, N] = A[M, K] x B[K, N] in float, with
// random non-zero inputs, a poisoned output and a double-precision reference.
struct MatmulProblem {
  std::int64_t m = 24, k = 40, n = 16;
  std::vector<float> a, b, c;
  std::vector<double> reference;
  Tensor ta, tb, tc;

  explicit MatmulProblem(Graph& graph, std::int64_t m_ = 24, std::int64_t k_ = 40, std::int64_t n_ = 16,
                         unsigned seed = 7);
  VariantPack pack() { return {{1, a.data()}, {2, b.data()}, {3, c.data()}}; }
  void poison();  // fills C with NaN
  // Largest |C - reference| relative to max(1, |reference|).
  double max_relative_error() const;
};

}  // namespace tunekit::graph::test_provider
