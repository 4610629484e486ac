// CPU_CONV_FIND: the measured choice between the CPU convolution engines.
#include "tunekit/engines/conv_find_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "tunekit/engines/conv_pattern.hpp"
#include "tunekit/engines/pattern_engine.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {

using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;

// The measured choice per graph signature and thread count.
struct ConvFindEngine::Choices {
  std::mutex mutex;
  std::map<std::string, std::size_t> chosen;

  static std::string key(const OperationGraph& graph, int threads) {
    return graph.signature().to_hex() + "/" + std::to_string(threads);
  }
};

namespace {

using Clock = std::chrono::steady_clock;

KnobValues with_threads(KnobValues knobs, int threads) {
  knobs.set("threads", std::int64_t{threads});
  return knobs;
}

// Runs one chosen candidate's kernel.
class ChosenKernel final : public ExecutionKernel {
 public:
  explicit ChosenKernel(std::unique_ptr<ExecutionKernel> kernel) : kernel_(std::move(kernel)) {}
  Error finalize() override { return kernel_->finalize(); }  // the candidate's own second step
  std::int64_t workspace_size() const override { return kernel_->workspace_size(); }
  Error execute(const ExecutionArguments& args) override { return kernel_->execute(args); }

 private:
  std::unique_ptr<ExecutionKernel> kernel_;
};

// A priming plan: times every candidate that compiled (one warm-up, then the
// best of three runs), keeps the fastest, and runs it last so that the
// outputs are its.
class PrimingKernel final : public ExecutionKernel {
 public:
  PrimingKernel(std::vector<std::pair<std::size_t, std::unique_ptr<ExecutionKernel>>> kernels,
                std::shared_ptr<ConvFindEngine::Choices> choices, std::string key)
      : kernels_(std::move(kernels)), choices_(std::move(choices)), key_(std::move(key)) {}
  std::int64_t workspace_size() const override {
    std::int64_t most = 0;
    for (const auto& [index, kernel] : kernels_) most = std::max(most, kernel->workspace_size());
    return most;
  }
  Error execute(const ExecutionArguments& args) override {
    double best = 0;
    std::optional<std::size_t> winner;
    ExecutionKernel* winning = nullptr;
    for (auto& [index, kernel] : kernels_) {
      if (kernel->execute(args).is_bad()) continue;
      double fastest = 0;
      for (int run = 0; run < 3; ++run) {
        const auto start = Clock::now();
        if (kernel->execute(args).is_bad()) break;
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        fastest = run == 0 ? seconds : std::min(fastest, seconds);
      }
      if (!winner || fastest < best) best = fastest, winner = index, winning = kernel.get();
    }
    if (!winner) return {ErrorCode::EXECUTION_FAILED, "CPU_CONV_FIND: no candidate ran"};
    {
      std::lock_guard lock(choices_->mutex);
      choices_->chosen[key_] = *winner;
    }
    return winning->execute(args);
  }

 private:
  std::vector<std::pair<std::size_t, std::unique_ptr<ExecutionKernel>>> kernels_;
  std::shared_ptr<ConvFindEngine::Choices> choices_;
  std::string key_;
};

graph::Knob benchmarking_knob() {
  graph::Knob knob;
  knob.id = std::string(graph::kBenchmarkingKnob);
  knob.type = graph::KnobType::INT;
  knob.default_value = std::int64_t{0};
  knob.min_value = std::int64_t{0};
  knob.max_value = std::int64_t{1};
  knob.description = "1: time every candidate when the plan executes and keep the fastest for later plans";
  return knob;
}

}  // namespace

ConvFindEngine::ConvFindEngine(std::vector<Candidate> candidates)
    : descriptor_{kConvFindEngine,
                  "CPU_CONV_FIND",
                  {threads_knob(), benchmarking_knob()},
                  40,
                  "chooses between the CPU convolution engines per shape: measured when primed "
                  "(global.benchmarking), else the first that applies of oneDNN auto, tunekit direct, tunekit 1x1, tunekit im2col"},
      candidates_(std::move(candidates)),
      choices_(std::make_shared<Choices>()) {}

Error ConvFindEngine::check_applicable(const OperationGraph& graph, const platform::Device& device) const {
  TUNEKIT_RETURN_IF_ERROR(require_device(platform::DeviceKind::CPU, device));
  TUNEKIT_RETURN_IF_ERROR(match_conv(graph).error());
  if (!heuristic(graph, device)) return {ErrorCode::NOT_SUPPORTED, "no convolution engine applies"};
  return Error::ok();
}

std::optional<std::size_t> ConvFindEngine::heuristic(const OperationGraph& graph, const platform::Device& device) const {
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const Candidate& c = candidates_[i];
    if (c.first_for && c.first_for(graph) && c.engine->check_applicable(graph, device).is_good()) return i;
  }
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (candidates_[i].engine->check_applicable(graph, device).is_good()) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> ConvFindEngine::current(const OperationGraph& graph, const platform::Device& device,
                                                   int threads) const {
  {
    std::lock_guard lock(choices_->mutex);
    auto it = choices_->chosen.find(Choices::key(graph, threads));
    if (it != choices_->chosen.end()) return it->second;
  }
  return heuristic(graph, device);
}

std::optional<std::string> ConvFindEngine::choice(const OperationGraph& graph, const platform::Device& device,
                                                  int threads) const {
  const std::optional<std::size_t> index = current(graph, device, threads);
  if (!index) return std::nullopt;
  return candidates_[*index].name;
}

bool ConvFindEngine::measured(const OperationGraph& graph, int threads) const {
  std::lock_guard lock(choices_->mutex);
  return choices_->chosen.count(Choices::key(graph, threads)) > 0;
}

Result<std::int64_t> ConvFindEngine::estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const {
  TUNEKIT_RETURN_IF_ERROR(match_conv(graph).error());
  const int threads = static_cast<int>(knobs.get_int("threads", 1));
  const bool priming = knobs.get_int(graph::kBenchmarkingKnob, 0) == 1;
  std::int64_t most = 0;
  // The device is not known here: a candidate that does not apply reports an
  // error, and is left out.
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    Result<std::int64_t> estimate =
        candidates_[i].engine->estimate_workspace(graph, with_threads(candidates_[i].knobs, threads));
    if (!estimate.ok()) continue;
    if (!priming) {
      std::lock_guard lock(choices_->mutex);
      auto it = choices_->chosen.find(Choices::key(graph, threads));
      if (it == choices_->chosen.end() || it->second == i) return *estimate;
      continue;
    }
    most = std::max(most, *estimate);
  }
  return most;
}

Result<std::unique_ptr<ExecutionKernel>> ConvFindEngine::compile(const OperationGraph& graph, const KnobValues& knobs,
                                                                 platform::Device& device) const {
  TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
  // Choices are kept by the requested thread count, which estimate_workspace
  // (that has no device) also knows.
  const int threads = static_cast<int>(knobs.get_int("threads", 1));
  if (knobs.get_int(graph::kBenchmarkingKnob, 0) == 1) {
    std::vector<std::pair<std::size_t, std::unique_ptr<ExecutionKernel>>> kernels;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (candidates_[i].engine->check_applicable(graph, device).is_bad()) continue;
      auto kernel = candidates_[i].engine->compile(graph, with_threads(candidates_[i].knobs, threads), device);
      if (kernel.ok() && (*kernel)->finalize().is_good()) kernels.emplace_back(i, std::move(kernel).value());
    }
    if (kernels.empty()) return Error(ErrorCode::NOT_SUPPORTED, "CPU_CONV_FIND: no candidate compiles");
    return std::unique_ptr<ExecutionKernel>(new PrimingKernel(std::move(kernels), choices_, Choices::key(graph, threads)));
  }
  const std::optional<std::size_t> index = current(graph, device, threads);
  const Candidate& chosen = candidates_[*index];
  auto kernel = chosen.engine->compile(graph, with_threads(chosen.knobs, threads), device);
  if (!kernel.ok()) return Error(kernel.error().code(), chosen.name + ": " + kernel.error().message());
  return std::unique_ptr<ExecutionKernel>(new ChosenKernel(std::move(kernel).value()));
}

}  // namespace tunekit::engines
