// Test doubles for the graph module: a device whose clock only moves when a
// fake engine executes (so timings are scripted and exact), configurable
// fake engines, and a fixture with a built matmul graph and its buffers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "tunekit/core/log.hpp"
#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/graph/graph.hpp"

namespace tunekit::graph::testing {

// The simulated world: a clock in milliseconds and a log of what happened.
struct Sim {
  double now_ms = 0.0;
  double resolution_ms = 1.0 / 1024.0;
  std::vector<std::string> events;  // "exec:<plan>", "sync"
  int syncs = 0;
  // false: the device plays a GPU (kind HIP, memory the host reaches only
  // through the device's copies, which are counted).
  bool host_addressable = true;
  int copies_to_device = 0;
  int copies_to_host = 0;
};

class ScriptedStream final : public platform::Stream {
 public:
  Error synchronize() override { return Error::ok(); }
};

class ScriptedTimer final : public platform::Timer {
 public:
  explicit ScriptedTimer(std::shared_ptr<Sim> sim) : sim_(std::move(sim)) {}
  Error start() override {
    start_ = sim_->now_ms;
    return Error::ok();
  }
  Error stop() override {
    stop_ = sim_->now_ms;
    return Error::ok();
  }
  Result<double> elapsed_ms() override { return stop_ - start_; }
  double resolution_ms() const override { return sim_->resolution_ms; }

 private:
  std::shared_ptr<Sim> sim_;
  double start_ = 0.0;
  double stop_ = 0.0;
};

class ScriptedDevice final : public platform::Device {
 public:
  explicit ScriptedDevice(std::shared_ptr<Sim> sim) : sim_(std::move(sim)) {}
  platform::DeviceKind kind() const override {
    return sim_->host_addressable ? platform::DeviceKind::CPU : platform::DeviceKind::HIP;
  }
  bool host_addressable() const override { return sim_->host_addressable; }
  Error copy_to_device(void* device_destination, const void* host_source, std::size_t bytes) override {
    ++sim_->copies_to_device;
    std::memcpy(device_destination, host_source, bytes);
    return Error::ok();
  }
  Error copy_to_host(void* host_destination, const void* device_source, std::size_t bytes) override {
    ++sim_->copies_to_host;
    std::memcpy(host_destination, device_source, bytes);
    return Error::ok();
  }
  std::string name() const override { return "scripted"; }
  std::string signature() const override { return "scripted:0"; }
  Result<platform::DeviceBuffer> allocate(std::size_t bytes, std::size_t) override {
    void* data = ::operator new(bytes == 0 ? 1 : bytes);
    return platform::DeviceBuffer(data, bytes, [](void* p) noexcept { ::operator delete(p); });
  }
  Result<std::unique_ptr<platform::Stream>> create_stream() override {
    return std::unique_ptr<platform::Stream>(new ScriptedStream());
  }
  Result<std::unique_ptr<platform::Timer>> create_timer(platform::Stream&) override {
    return std::unique_ptr<platform::Timer>(new ScriptedTimer(sim_));
  }
  Error synchronize() override {
    ++sim_->syncs;
    sim_->events.push_back("sync");
    return Error::ok();
  }

 private:
  std::shared_ptr<Sim> sim_;
};

// What a fake engine does; every behaviour is a field.
struct FakeBehaviour {
  EngineDescriptor descriptor;
  bool applicable = true;
  std::function<std::int64_t(const KnobValues&)> estimate = [](const KnobValues&) { return std::int64_t{0}; };
  // A reason when the engine refuses these knobs for the graph (NOT_SUPPORTED
  // from estimate_workspace and compile); empty: it takes them.
  std::function<std::string(const KnobValues&)> refuse;
  std::function<std::int64_t(const KnobValues&)> workspace = [](const KnobValues&) { return std::int64_t{0}; };
  std::function<double(const KnobValues&)> cost_ms = [](const KnobValues&) { return 1.0; };
  // Per-execution costs cycled in order (overrides cost_ms when not empty).
  std::vector<double> cost_script;
  bool fail_compile = false;
  double compile_sleep_ms = 0;  // real time compile takes (compile time is wall time)
  bool fail_finalize = false;
  bool fail_execute = false;
  bool throw_execute = false;
  bool fail_when_primed = false;  // compiling with global.benchmarking=1 fails
  int fail_at_execution = -1;     // 1-based execution count (over all plans) that fails
  // What the kernel writes into the variant pack's buffers (nothing when empty).
  std::function<void(const VariantPack&)> compute;
};

struct FakeCounters {
  int compiles = 0;
  int executions = 0;
  int primed_executions = 0;
};

class FakeKernel final : public ExecutionKernel {
 public:
  FakeKernel(const FakeBehaviour& b, std::shared_ptr<Sim> sim, std::shared_ptr<FakeCounters> counters, KnobValues knobs)
      : b_(b), sim_(std::move(sim)), counters_(std::move(counters)), knobs_(std::move(knobs)) {}
  Error finalize() override {
    if (b_.fail_finalize) return {ErrorCode::COMPILE_FAILED, "finalize refused"};
    return Error::ok();
  }
  std::int64_t workspace_size() const override { return b_.workspace(knobs_); }
  Error execute(const ExecutionArguments& args) override {
    const int n = ++counters_->executions;
    if (knobs_.get_int(kBenchmarkingKnob) == 1) ++counters_->primed_executions;
    sim_->events.push_back("exec:" + b_.descriptor.name);
    if (b_.throw_execute) throw std::runtime_error("kernel exploded");
    if (b_.fail_execute || n == b_.fail_at_execution) return {ErrorCode::EXECUTION_FAILED, "kernel refused"};
    if (b_.compute) b_.compute(args.variant_pack);
    const double cost = b_.cost_script.empty()
                            ? b_.cost_ms(knobs_)
                            : b_.cost_script[static_cast<std::size_t>(n - 1) % b_.cost_script.size()];
    sim_->now_ms += cost;
    return Error::ok();
  }

 private:
  const FakeBehaviour& b_;
  std::shared_ptr<Sim> sim_;
  std::shared_ptr<FakeCounters> counters_;
  KnobValues knobs_;
};

class FakeEngine final : public Engine {
 public:
  FakeEngine(FakeBehaviour behaviour, std::shared_ptr<Sim> sim)
      : b_(std::move(behaviour)), sim_(std::move(sim)), counters_(std::make_shared<FakeCounters>()) {}
  const EngineDescriptor& descriptor() const override { return b_.descriptor; }
  Error check_applicable(const OperationGraph&, const platform::Device&) const override {
    if (!b_.applicable) return {ErrorCode::NOT_SUPPORTED, "only for other graphs"};
    return Error::ok();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph&, const KnobValues& knobs) const override {
    if (b_.refuse) {
      if (std::string why = b_.refuse(knobs); !why.empty()) return Error(ErrorCode::NOT_SUPPORTED, why);
    }
    return b_.estimate(knobs);
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph&, const KnobValues& knobs,
                                                   platform::Device&) const override {
    ++counters_->compiles;
    if (b_.compile_sleep_ms > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(b_.compile_sleep_ms));
    }
    if (b_.fail_compile) return Error(ErrorCode::COMPILE_FAILED, "compiler said no");
    if (b_.fail_when_primed && knobs.get_int(kBenchmarkingKnob) == 1) {
      return Error(ErrorCode::COMPILE_FAILED, "cannot prime");
    }
    return std::unique_ptr<ExecutionKernel>(new FakeKernel(b_, sim_, counters_, knobs));
  }
  FakeCounters& counters() const { return *counters_; }
  FakeBehaviour& behaviour() { return b_; }

 private:
  FakeBehaviour b_;
  std::shared_ptr<Sim> sim_;
  std::shared_ptr<FakeCounters> counters_;
};

inline Knob int_knob(std::string id, std::int64_t def, std::int64_t lo, std::int64_t hi, std::int64_t step = 0) {
  Knob k;
  k.id = std::move(id);
  k.type = KnobType::INT;
  k.default_value = def;
  k.min_value = lo;
  k.max_value = hi;
  if (step > 0) k.step = step;
  return k;
}

inline Knob benchmarking_knob() { return int_knob(std::string(kBenchmarkingKnob), 0, 0, 1); }

inline FakeBehaviour behaviour(std::int64_t id, std::string name, double cost_ms = 1.0) {
  FakeBehaviour b;
  b.descriptor.id = id;
  b.descriptor.name = std::move(name);
  b.cost_ms = [cost_ms](const KnobValues&) { return cost_ms; };
  return b;
}

// Captures log lines for the duration of a test.
class LogCapture {
 public:
  LogCapture() : saved_(log::level()) {
    log::set_level(log::Level::DEBUG);
    log::set_sink([this](log::Level level, std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(level, std::string(message));
    });
  }
  ~LogCapture() {
    log::set_sink(nullptr);
    log::set_level(saved_);
  }
  std::vector<std::string> lines(log::Level at_least = log::Level::TRACE) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [level, text] : lines_) {
      if (level >= at_least) out.push_back(text);
    }
    return out;
  }
  int count_containing(std::string_view needle, log::Level at_least = log::Level::TRACE) const {
    int n = 0;
    for (const auto& line : lines(at_least)) n += line.find(needle) != std::string::npos ? 1 : 0;
    return n;
  }

 private:
  log::Level saved_;
  mutable std::mutex mutex_;
  std::vector<std::pair<log::Level, std::string>> lines_;
};

// A built graph C[4,2] = A[4,8] x B[8,2] (uids 1, 2, 3) on a scripted device.
class GraphFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    sim = std::make_shared<Sim>();
    device = std::make_unique<ScriptedDevice>(sim);
  }

  FakeEngine& add(FakeBehaviour b) {
    auto engine = std::make_shared<FakeEngine>(std::move(b), sim);
    engines.push_back(engine);
    return *engine;
  }

  // Registers the engines, creates the handle and builds the graph.
  void build(bool build_graph = true) {
    auto reg = std::make_shared<EngineRegistry>();
    for (const auto& e : engines) ASSERT_TRUE(reg->add_engine(e).is_good());
    registry = reg;
    auto created = Handle::create(*device, registry);
    ASSERT_TRUE(created.ok());
    handle = std::move(created).value();
    a = graph.tensor(TensorAttributes().set_name("A").set_uid(1).set_dim({4, 8}));
    b = graph.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({8, 2}));
    c = graph.matmul(a, b, "mm");
    c->set_output(true).set_uid(3).set_name("C");
    if (build_graph) {
      ASSERT_TRUE(graph.build_operation_graph(handle.get()).is_good());
    }
    pack = {{1, a_data.data()}, {2, b_data.data()}, {3, c_data.data()}};
  }

  const AutotuneResult* find(const std::vector<AutotuneResult>& results, std::int64_t id) const {
    for (const auto& r : results) {
      if (r.engine_id == id) return &r;
    }
    return nullptr;
  }

  std::shared_ptr<Sim> sim;
  std::unique_ptr<ScriptedDevice> device;
  std::vector<std::shared_ptr<FakeEngine>> engines;
  std::shared_ptr<const EngineRegistry> registry;
  std::unique_ptr<Handle> handle;
  Graph graph;
  Tensor a, b, c;
  std::vector<float> a_data = std::vector<float>(32, 1.0f);
  std::vector<float> b_data = std::vector<float>(16, 1.0f);
  std::vector<float> c_data = std::vector<float>(8, 0.0f);
  std::vector<std::byte> workspace = std::vector<std::byte>(1 << 20);
  VariantPack pack;
};

}  // namespace tunekit::graph::testing
