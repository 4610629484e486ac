// The GPU matmul engines: HIP_MATMUL_TUNEKIT_NAIVE (a thread per element),
// HIP_MATMUL_TUNEKIT_TILED (tile sizes, block size and split-k as knobs) and
// HIP_MATMUL_FIND (measures its own tiles for the shape when primed, else
// picks one by size). All run the CPU engines' matmul pattern: rank 2 or a
// batch, a bias along C's rows and an activation.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "hip_engine_support.hpp"
#include "hip_kernels.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/hip/tuning_defaults.hpp"

namespace tunekit::hip_engines {
namespace {

using engines::MatmulPattern;
using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using hip_kernels::MatmulArgs;
using hip_kernels::MatmulTile;

hip_kernels::Activation to_kernel(engines::Activation activation) {
  switch (activation) {
    case engines::Activation::NONE:
      return hip_kernels::Activation::NONE;
    case engines::Activation::RELU:
      return hip_kernels::Activation::RELU;
    case engines::Activation::GELU:
      return hip_kernels::Activation::GELU;
    case engines::Activation::SIGMOID:
      return hip_kernels::Activation::SIGMOID;
    case engines::Activation::TANH:
      return hip_kernels::Activation::TANH;
  }
  return hip_kernels::Activation::NONE;
}

// The kernel arguments of a pattern, with the buffers of a variant pack.
Result<MatmulArgs> arguments(const MatmulPattern& p, const graph::VariantPack& pack) {
  Result<engines::MatmulBuffers> buffers = engines::find_buffers(p, pack);
  if (!buffers.ok()) return buffers.error();
  MatmulArgs args;
  args.m = p.m, args.n = p.n, args.k = p.k;
  args.a = buffers->a, args.lda = p.a.ld, args.a_transposed = p.a.transposed;
  args.b = buffers->b, args.ldb = p.b.ld, args.b_transposed = p.b.transposed;
  args.c = buffers->c, args.ldc = p.ldc;
  args.bias = buffers->bias;
  args.activation = to_kernel(p.activation);
  args.batch = p.batch;
  args.a_batch_stride = p.a_batch_stride, args.b_batch_stride = p.b_batch_stride,
  args.c_batch_stride = p.c_batch_stride;
  return args;
}

MatmulArgs shape_only(const MatmulPattern& p) {
  MatmulArgs args;
  args.m = p.m, args.n = p.n, args.k = p.k, args.batch = p.batch;
  return args;
}

// The portable defaults of kernels/hip/tuning.toml.
const hip::HipMatmulTuning kDefaults{};

MatmulTile tile_of(const KnobValues& knobs) {
  MatmulTile tile;
  tile.tile_m = static_cast<int>(knobs.get_int("tile_m", kDefaults.tile_m));
  tile.tile_n = static_cast<int>(knobs.get_int("tile_n", kDefaults.tile_n));
  tile.tile_k = static_cast<int>(knobs.get_int("tile_k", kDefaults.tile_k));
  tile.threads_per_block = static_cast<int>(knobs.get_int("threads_per_block", kDefaults.threads_per_block));
  tile.split_k = static_cast<int>(knobs.get_int("split_k", kDefaults.split_k));
  return tile;
}

std::string describe(const MatmulTile& t) {
  return fmt::format("{}x{}x{} tile, {} threads, split-k {}", t.tile_m, t.tile_n, t.tile_k, t.threads_per_block,
                     t.split_k);
}

Error check_tile(const MatmulTile& tile) {
  if (hip_kernels::matmul_tile_compiled(tile)) return Error::ok();
  return {
      ErrorCode::NOT_SUPPORTED,
      fmt::format("no kernel is compiled for a {}: each thread must own 1 to 64 elements of the tile", describe(tile))};
}

class NaiveKernel final : public ExecutionKernel {
 public:
  explicit NaiveKernel(MatmulPattern pattern) : pattern_(std::move(pattern)) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& a) override {
    Result<MatmulArgs> args = arguments(pattern_, a.variant_pack);
    if (!args.ok()) return args.error();
    return launch_status(hip_kernels::matmul_naive(*args, native_stream(a)), "HIP_MATMUL_TUNEKIT_NAIVE");
  }

 private:
  MatmulPattern pattern_;
};

class TiledKernel final : public ExecutionKernel {
 public:
  TiledKernel(MatmulPattern pattern, MatmulTile tile, std::string name)
      : pattern_(std::move(pattern)), tile_(tile), name_(std::move(name)) {}
  std::int64_t workspace_size() const override {
    return hip_kernels::matmul_tiled_workspace_bytes(shape_only(pattern_), tile_);
  }
  Error execute(const ExecutionArguments& a) override {
    Result<MatmulArgs> args = arguments(pattern_, a.variant_pack);
    if (!args.ok()) return args.error();
    if (a.workspace_size < workspace_size()) {
      return {ErrorCode::INVALID_VALUE, fmt::format("{}: the workspace has {} bytes, split-k {} needs {}", name_,
                                                    a.workspace_size, tile_.split_k, workspace_size())};
    }
    return launch_status(hip_kernels::matmul_tiled(*args, tile_, static_cast<float*>(a.workspace), native_stream(a)),
                         name_);
  }

 private:
  MatmulPattern pattern_;
  MatmulTile tile_;
  std::string name_;
};

// The tiles HIP_MATMUL_FIND chooses between.
std::vector<MatmulTile> find_candidates(const MatmulPattern& p) {
  std::vector<MatmulTile> tiles = {{32, 32, 16, 128, 1}, {64, 64, 16, 256, 1},  {64, 128, 8, 256, 1},
                                   {128, 64, 8, 256, 1}, {128, 128, 8, 256, 1}, {128, 128, 16, 256, 1},
                                   {32, 64, 16, 128, 1}};
  // Few tiles of C over a long k: split it so that more blocks run at once.
  if (p.k >= 4 * std::max<std::int64_t>(p.m, p.n)) {
    tiles.push_back({32, 32, 16, 128, 4});
    tiles.push_back({64, 64, 16, 256, 4});
  }
  return tiles;
}

// Without a measurement: large tiles for large C, split-k for a long k.
MatmulTile heuristic_tile(const MatmulPattern& p) {
  if (p.k >= 4 * std::max<std::int64_t>(p.m, p.n) && p.m * p.n * p.batch <= 256 * 256) return {32, 32, 16, 128, 4};
  if (p.m * p.n * p.batch >= 1024 * 1024) return {128, 128, 8, 256, 1};
  if (p.m * p.n * p.batch >= 256 * 256) return {64, 64, 16, 256, 1};
  return {32, 32, 16, 128, 1};
}

// The measured tiles per graph signature, shared by every plan of the engine.
struct FindChoices {
  std::mutex mutex;
  std::map<std::string, MatmulTile> chosen;
};

// A priming plan: times every candidate tile with the device's event timer
// (a warm-up, then the best of three), keeps the fastest for later plans and
// runs it last so that the outputs are its.
class PrimingKernel final : public ExecutionKernel {
 public:
  PrimingKernel(MatmulPattern pattern, std::vector<MatmulTile> tiles, platform::Device& device,
                std::shared_ptr<FindChoices> choices, std::string key)
      : pattern_(std::move(pattern)),
        tiles_(std::move(tiles)),
        device_(device),
        choices_(std::move(choices)),
        key_(std::move(key)) {}
  std::int64_t workspace_size() const override {
    std::int64_t most = 0;
    for (const MatmulTile& t : tiles_)
      most = std::max(most, hip_kernels::matmul_tiled_workspace_bytes(shape_only(pattern_), t));
    return most;
  }
  Error execute(const ExecutionArguments& a) override {
    Result<std::unique_ptr<platform::Timer>> timer = device_.create_timer(a.stream);
    if (!timer.ok()) return timer.error();
    double best = 0;
    const MatmulTile* winner = nullptr;
    for (const MatmulTile& tile : tiles_) {
      TiledKernel kernel(pattern_, tile, "HIP_MATMUL_FIND");
      if (kernel.execute(a).is_bad()) continue;
      double fastest = -1;
      for (int run = 0; run < 3; ++run) {
        if ((*timer)->start().is_bad() || kernel.execute(a).is_bad() || (*timer)->stop().is_bad()) break;
        Result<double> ms = (*timer)->elapsed_ms();
        if (!ms.ok()) break;
        fastest = fastest < 0 ? *ms : std::min(fastest, *ms);
      }
      if (fastest >= 0 && (winner == nullptr || fastest < best)) best = fastest, winner = &tile;
    }
    if (winner == nullptr) return {ErrorCode::EXECUTION_FAILED, "HIP_MATMUL_FIND: no candidate tile ran"};
    {
      std::lock_guard lock(choices_->mutex);
      choices_->chosen[key_] = *winner;
    }
    return TiledKernel(pattern_, *winner, "HIP_MATMUL_FIND").execute(a);
  }

 private:
  MatmulPattern pattern_;
  std::vector<MatmulTile> tiles_;
  platform::Device& device_;
  std::shared_ptr<FindChoices> choices_;
  std::string key_;
};

graph::Knob benchmarking_knob() {
  graph::Knob knob = int_choice_knob(std::string(graph::kBenchmarkingKnob), 0, {0, 1},
                                     "1: time the candidate tiles when the plan executes and keep the fastest for "
                                     "later plans of the shape");
  return knob;
}

class FindEngine final : public graph::Engine {
 public:
  FindEngine()
      : descriptor_({kMatmulFindEngine,
                     "HIP_MATMUL_FIND",
                     {benchmarking_knob()},
                     50,
                     "the tiled GPU matmul with the tile measured for the shape when primed "
                     "(global.benchmarking), else chosen by the size of C and k"}),
        choices_(std::make_shared<FindChoices>()) {}

  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(require_hip_device(device));
    return engines::match_matmul(graph).error();
  }

  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const override {
    Result<MatmulPattern> pattern = engines::match_matmul(graph);
    if (!pattern.ok()) return pattern.error();
    if (knobs.get_int(graph::kBenchmarkingKnob, 0) == 1) {
      std::int64_t most = 0;
      for (const MatmulTile& t : find_candidates(*pattern)) {
        most = std::max(most, hip_kernels::matmul_tiled_workspace_bytes(shape_only(*pattern), t));
      }
      return most;
    }
    return hip_kernels::matmul_tiled_workspace_bytes(shape_only(*pattern), current(graph, *pattern));
  }

  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    MatmulPattern pattern = *engines::match_matmul(graph);
    if (knobs.get_int(graph::kBenchmarkingKnob, 0) == 1) {
      std::vector<MatmulTile> tiles = find_candidates(pattern);
      return std::unique_ptr<ExecutionKernel>(
          new PrimingKernel(std::move(pattern), std::move(tiles), device, choices_, graph.signature().to_hex()));
    }
    const MatmulTile tile = current(graph, pattern);
    return std::unique_ptr<ExecutionKernel>(new TiledKernel(std::move(pattern), tile, descriptor().name));
  }

 private:
  MatmulTile current(const OperationGraph& graph, const MatmulPattern& pattern) const {
    std::lock_guard lock(choices_->mutex);
    auto it = choices_->chosen.find(graph.signature().to_hex());
    return it != choices_->chosen.end() ? it->second : heuristic_tile(pattern);
  }

  EngineDescriptor descriptor_;
  std::shared_ptr<FindChoices> choices_;
};

}  // namespace

std::vector<std::shared_ptr<const graph::Engine>> matmul_engines() {
  auto naive = hip_pattern_engine<MatmulPattern>(
      {kMatmulNaiveEngine,
       "HIP_MATMUL_TUNEKIT_NAIVE",
       {},
       900,
       "matmul on the GPU, one thread per element of C reading A and B from global memory"},
      engines::match_matmul, no_workspace<MatmulPattern>,
      [](const MatmulPattern& p, const KnobValues&, int) -> Result<std::unique_ptr<ExecutionKernel>> {
        return std::unique_ptr<ExecutionKernel>(new NaiveKernel(p));
      });
  auto tiled = hip_pattern_engine<MatmulPattern>(
      {kMatmulTiledEngine,
       "HIP_MATMUL_TUNEKIT_TILED",
       {int_choice_knob("tile_m", kDefaults.tile_m, {32, 64, 128}, "rows of C per block"),
        int_choice_knob("tile_n", kDefaults.tile_n, {32, 64, 128}, "columns of C per block"),
        int_choice_knob("tile_k", kDefaults.tile_k, {8, 16}, "depth of the shared-memory tiles of A and B per step"),
        int_choice_knob("threads_per_block", kDefaults.threads_per_block, {64, 128, 256}, "threads of a block"),
        int_choice_knob("split_k", kDefaults.split_k, {1, 2, 4, 8},
                        "blocks sharing one tile's depth; their partial sums are added in the workspace")},
       100,
       "matmul on the GPU in shared-memory tiles, each thread accumulating its elements of the tile in registers"},
      engines::match_matmul,
      [](const MatmulPattern& p, const KnobValues& knobs) -> Result<std::int64_t> {
        const MatmulTile tile = tile_of(knobs);
        TUNEKIT_RETURN_IF_ERROR(check_tile(tile));
        return hip_kernels::matmul_tiled_workspace_bytes(shape_only(p), tile);
      },
      [](const MatmulPattern& p, const KnobValues& knobs, int) -> Result<std::unique_ptr<ExecutionKernel>> {
        const MatmulTile tile = tile_of(knobs);
        TUNEKIT_RETURN_IF_ERROR(check_tile(tile));
        return std::unique_ptr<ExecutionKernel>(new TiledKernel(p, tile, "HIP_MATMUL_TUNEKIT_TILED"));
      });
  return {std::move(naive), std::move(tiled), std::make_shared<FindEngine>()};
}

}  // namespace tunekit::hip_engines
