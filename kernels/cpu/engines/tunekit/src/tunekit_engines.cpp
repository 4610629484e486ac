// tunekit's matmul engines: the Gemm with a bias and ReLU fused into its
// tiles (GELU, sigmoid and tanh in a second pass), and a row split whose
// threads each multiply and finish their own rows.
#include "tunekit/engines/tunekit_engines.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <thread>
#include <vector>

#include "tunekit/cpu/elementwise_arrays.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/team.hpp"
#include "tunekit/engines/matmul_epilogue.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/tuning/tuning_session.hpp"
#include "tunekit_gemm.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;

cpu::Transpose transpose(const MatrixOperand& x) { return x.transposed ? cpu::Transpose::YES : cpu::Transpose::NO; }

// A float pattern runs the Gemm into C with the bias and ReLU in its tiles,
// or the epilogue over C after it; a bfloat16 one runs the widening Gemm,
// whose float product takes the epilogue before C is rounded, once.
class GemmThenEpilogue final : public ExecutionKernel {
 public:
  GemmThenEpilogue(MatmulPattern pattern, cpu::GemmKernel gemm, int threads)
      : pattern_(pattern), gemm_(gemm), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    return pattern_.type == DataType::FLOAT ? execute_float(args) : execute_widening(args);
  }

 private:
  Error execute_widening(const ExecutionArguments& args) {
    Result<Bfloat16MatmulBuffers> buffers = find_buffers_of<std::uint16_t>(pattern_, args.variant_pack);
    if (!buffers.ok()) return buffers.error();
    std::vector<float> bias;
    if (buffers->bias != nullptr) {
      bias.resize(static_cast<std::size_t>(pattern_.n));
      (void)cpu::widen_to_float_array(pattern_.type, buffers->bias, bias.data(), pattern_.n);
    }
    MatmulPattern wide = pattern_;
    wide.type = DataType::FLOAT;
    cpu::GemmKernel::WideProductEpilogue epilogue;
    if (pattern_.has_epilogue()) {
      // Called from several threads when the batch runs side by side: each call works on its own copy.
      epilogue = [&wide, &bias](float* c, std::int64_t ldc, int threads) {
        MatmulPattern dense = wide;
        dense.ldc = ldc;
        apply_epilogue(dense, bias.empty() ? nullptr : bias.data(), c, threads);
      };
    }
    return for_each_product([&](std::int64_t index, int threads) {
      const Bfloat16MatmulBuffers x = buffers->at_batch(pattern_, index);
      return gemm_.run(pattern_.type, transpose(pattern_.a), transpose(pattern_.b), pattern_.m, pattern_.n,
                       pattern_.k, 1.0f, x.a, pattern_.a.ld, x.b, pattern_.b.ld, 0.0f, x.c, pattern_.ldc, epilogue,
                       cpu::GemmPath::AUTO, threads);
    });
  }

  Error execute_float(const ExecutionArguments& args) {
    Result<MatmulBuffers> buffers = find_buffers(pattern_, args.variant_pack);
    if (!buffers.ok()) return buffers.error();
    // A bias and ReLU go into the Gemm's tiles, in registers before their
    // only store; GELU, sigmoid and tanh follow in a second pass (per tile,
    // through a call on each block of C, even ReLU measured 1.25x slower
    // than the second pass on a 1024 x 64 x 64 product).
    const bool fused = pattern_.activation == Activation::NONE || pattern_.activation == Activation::RELU;
    return for_each_product([&](std::int64_t index, int threads) {
      const MatmulBuffers x = buffers->at_batch(pattern_, index);
      const cpu::GemmKernel::Epilogue in_tiles =
          fused ? cpu::GemmKernel::Epilogue{x.bias, pattern_.activation == Activation::RELU} : cpu::GemmKernel::Epilogue{};
      TUNEKIT_RETURN_IF_ERROR(gemm_.run(transpose(pattern_.a), transpose(pattern_.b), pattern_.m, pattern_.n,
                                        pattern_.k, 1.0f, x.a, pattern_.a.ld, x.b, pattern_.b.ld, 0.0f, x.c,
                                        pattern_.ldc, in_tiles, cpu::GemmPath::AUTO, threads));
      if (fused) return Error::ok();
      // On the product's team: a product too small for a team has an
      // epilogue too small for one (two threads made a 16 x 8 product's
      // bias and ReLU take 6.8 us instead of 3.3).
      apply_epilogue(pattern_, x.bias, x.c, gemm_.team(pattern_.m, pattern_.n, pattern_.k, threads));
      return Error::ok();
    });
  }

  // The threads that run the products of a batch side by side, one thread
  // each; 1: one product after another, each on its own team. Side by side
  // when one product is too small for the Gemm to run it on more than one
  // thread and the batch as a whole is not (attention's 12 products of
  // 128 x 128 x 64 each ran on one thread, one after another), and when the
  // batch has a product for every thread of the whole batch's team and
  // either divides evenly between them or a product alone would get fewer:
  // a thread then runs whole products without waiting for the others (with
  // fmas_per_work_unit 262144, those 12 products each on two threads took
  // 1.75x the time of running them side by side on an Emerald Rapids). A
  // product that takes a smaller team than the run's keeps it where the
  // batch is too short to fill the run's threads: two products of 8 threads
  // each on 16 would otherwise run on 2.
  int batch_team() const {
    if (pattern_.batch < 2) return 1;
    const int whole = gemm_.team(pattern_.batch * pattern_.m, pattern_.n, pattern_.k, threads_);
    const int single = gemm_.team(pattern_.m, pattern_.n, pattern_.k, threads_);
    if (whole <= 1) return 1;
    if (pattern_.batch >= whole && (single < whole || pattern_.batch % whole == 0)) return whole;
    return single == 1 ? static_cast<int>(std::min<std::int64_t>(pattern_.batch, whole)) : 1;
  }

  // run(index, threads) for every product of the batch; the first error.
  template <typename Run>
  Error for_each_product(const Run& run) {
    const int team = batch_team();
    if (team <= 1) {
      for (std::int64_t index = 0; index < pattern_.batch; ++index) TUNEKIT_RETURN_IF_ERROR(run(index, threads_));
      return Error::ok();
    }
    Error first_error = Error::ok();
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::int64_t index = 0; index < pattern_.batch; ++index) {
      Error error = run(index, 1);
      if (error.is_bad()) {
#pragma omp critical(tunekit_batched_matmul_error)
        if (first_error.is_good()) first_error = error;
      }
    }
    return first_error;
  }

  MatmulPattern pattern_;
  cpu::GemmKernel gemm_;
  int threads_;
};

class RowSplit final : public ExecutionKernel {
 public:
  RowSplit(MatmulPattern pattern, cpu::GemmKernel gemm, int threads)
      : pattern_(pattern), gemm_(gemm), threads_(threads) {}
  std::int64_t workspace_size() const override { return 0; }
  Error execute(const ExecutionArguments& args) override {
    Result<MatmulBuffers> buffers = find_buffers(pattern_, args.variant_pack);
    if (!buffers.ok()) return buffers.error();
    for (std::int64_t index = 0; index < pattern_.batch; ++index) {
      TUNEKIT_RETURN_IF_ERROR(run_batch(buffers->at_batch(pattern_, index)));
    }
    return Error::ok();
  }

 private:
  Error run_batch(const MatmulBuffers& batch) {
    const MatmulBuffers* x = &batch;
    // Slabs of whole register blocks, so that no thread runs a ragged edge
    // in the middle of C.
    const std::int64_t block = cpu::gemm_register_block(DataType::FLOAT).mr;
    const std::int64_t blocks = (pattern_.m + block - 1) / block;
    const int team = static_cast<int>(std::clamp<std::int64_t>(threads_, 1, std::max<std::int64_t>(blocks, 1)));
    Error first_error = Error::ok();
    cpu::run_on_team(team, [&] {
      const int t = omp_get_thread_num();
      const int count = omp_get_num_threads();
      const std::int64_t begin = std::min(pattern_.m, blocks * t / count * block);
      const std::int64_t end = std::min(pattern_.m, blocks * (t + 1) / count * block);
      if (begin < end) {
        const float* a = pattern_.a.transposed ? x->a + begin : x->a + begin * pattern_.a.ld;
        float* c = x->c + begin * pattern_.ldc;
        Error error = gemm_.run(transpose(pattern_.a), transpose(pattern_.b), end - begin, pattern_.n, pattern_.k,
                                1.0f, a, pattern_.a.ld, x->b, pattern_.b.ld, 0.0f, c, pattern_.ldc,
                                cpu::GemmPath::AUTO, 1);
        if (error.is_good()) {
          MatmulPattern rows = pattern_;
          rows.m = end - begin;
          apply_epilogue_rows(rows, x->bias, c, 0, end - begin);
        } else {
#pragma omp critical(tunekit_rowsplit_error)
          if (first_error.is_good()) first_error = error;
        }
      }
    });
    return first_error;
  }

  MatmulPattern pattern_;
  cpu::GemmKernel gemm_;
  int threads_;
};

enum class Strategy { GEMM_THEN_EPILOGUE, ROW_SPLIT };

// With one thread there is no team to start sooner: a candidate that set
// fmas_per_work_unit would time the defaults again.
Error check_team_knob(const KnobValues& knobs, int threads) {
  if (threads <= 1 && knobs.get_int("fmas_per_work_unit", 0) > 0) {
    return not_supported("fmas_per_work_unit: the run has one thread");
  }
  return Error::ok();
}

// The kernel of `strategy` with the session's Gemm, its tiles overridden by
// the knobs that set them.
Result<std::unique_ptr<ExecutionKernel>> make_matmul(Strategy strategy, const MatmulPattern& pattern,
                                                     const KnobValues& knobs, int threads) {
  Result<cpu::GemmKernel> gemm = detail::session_gemm(threads, pattern.type);
  if (!gemm.ok()) return gemm.error();
  cpu::GemmPackedTuning config = gemm->config();
  if (const std::int64_t tile_m = knobs.get_int("tile_m", 0); tile_m > 0) config.algorithm_tile_m = tile_m;
  if (const std::int64_t tile_k = knobs.get_int("tile_k", 0); tile_k > 0) config.algorithm_tile_k = tile_k;
  TUNEKIT_RETURN_IF_ERROR(check_team_knob(knobs, threads));
  if (const std::int64_t fmas = knobs.get_int("fmas_per_work_unit", 0); fmas > 0) {
    config.parallel_fmas_per_work_unit = fmas;
  }
  const cpu::GemmKernel configured(config, gemm->widening(), threads);
  if (strategy == Strategy::ROW_SPLIT) {
    return std::unique_ptr<ExecutionKernel>(new RowSplit(pattern, configured, threads));
  }
  return std::unique_ptr<ExecutionKernel>(new GemmThenEpilogue(pattern, configured, threads));
}

// The row split runs float only: its threads would each widen the whole of B.
Result<MatmulPattern> match_for(Strategy strategy, const graph::OperationGraph& graph) {
  if (strategy == Strategy::ROW_SPLIT) return match_matmul(graph);
  return match_matmul_of(graph, {DataType::FLOAT, DataType::BFLOAT16});
}

std::shared_ptr<const graph::Engine> matmul_engine(EngineDescriptor descriptor, Strategy strategy) {
  return std::make_shared<PatternEngine<MatmulPattern>>(
      std::move(descriptor), [strategy](const graph::OperationGraph& graph) { return match_for(strategy, graph); },
      [](const MatmulPattern&, const KnobValues& knobs) -> Result<std::int64_t> {
        TUNEKIT_RETURN_IF_ERROR(check_team_knob(knobs, static_cast<int>(knobs.get_int("threads", 1))));
        return std::int64_t{0};
      },
      [strategy](const MatmulPattern& p, const KnobValues& knobs, int threads) {
        return make_matmul(strategy, p, knobs, threads);
      });
}

}  // namespace

namespace detail {
Result<cpu::GemmKernel> session_gemm(int threads, DataType type) {
  tuning::TuningSessionOptions options;
  options.threads = static_cast<std::uint32_t>(threads);
  Result<tuning::TuningSession> session = tuning::TuningSession::create(options);
  if (!session.ok()) return session.error();
  return cpu::GemmKernel::for_session(*session, type);
}
}  // namespace detail


graph::Knob threads_knob() {
  const auto hardware = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  graph::Knob knob;
  knob.id = "threads";
  knob.type = graph::KnobType::INT;
  knob.default_value = hardware;
  knob.min_value = std::int64_t{1};
  knob.max_value = hardware;
  knob.description = "threads of the run (at most the device's effective threads)";
  return knob;
}

graph::Knob int_choice_knob(std::string id, std::int64_t default_value, const std::vector<std::int64_t>& allowed,
                            std::string description) {
  graph::Knob knob;
  knob.id = std::move(id);
  knob.type = graph::KnobType::INT;
  knob.default_value = default_value;
  for (std::int64_t value : allowed) knob.allowed_values.emplace_back(value);
  knob.description = std::move(description);
  return knob;
}

TunekitEngineProvider::TunekitEngineProvider() {
  engines_.push_back(matmul_engine(
      EngineDescriptor{kMatmulTunekitEngine,
                       "CPU_MATMUL_TUNEKIT",
                       {threads_knob(),
                        int_choice_knob("tile_m", 0, {0, 96, 192},
                                        "rows of the packed A block (0: the session's algorithm.tile_m)"),
                        int_choice_knob("tile_k", 0, {0, 128, 384},
                                        "depth of the packed panels (0: the session's algorithm.tile_k)"),
                        // The session's crossover is calibrated on cubes; a product of
                        // many rows and few columns (1024 x 64 x 64) ran 1.4-1.7x faster
                        // on 2 threads of an Emerald Rapids where the cubes' crossover
                        // ran it on one.
                        int_choice_knob("fmas_per_work_unit", 0, {0, 262144, 1048576},
                                        "multiply-adds each thread's share must have for the product to run on "
                                        "more threads (0: the session's parallel.fmas_per_work_unit)")},
                       10,
                       "tunekit's Gemm; a bias and ReLU fused into its tiles, GELU, sigmoid and tanh in a second pass"},
      Strategy::GEMM_THEN_EPILOGUE));
  engines_.push_back(matmul_engine(
      EngineDescriptor{kMatmulTunekitRowSplitEngine,
                       "CPU_MATMUL_TUNEKIT_ROWSPLIT",
                       {threads_knob()},
                       11,
                       "C's rows split between the threads: each multiplies its rows with the serial Gemm and "
                       "applies the bias and activation while they are in its cache"},
      Strategy::ROW_SPLIT));
  for (auto& engine : detail::make_conv_engines()) engines_.push_back(std::move(engine));
  for (auto& engine : detail::make_layernorm_engines()) engines_.push_back(std::move(engine));
  for (auto& engine : detail::make_reduction_engines()) engines_.push_back(std::move(engine));
  for (auto& engine : detail::make_rmsnorm_engines()) engines_.push_back(std::move(engine));
  for (auto& engine : detail::make_softmax_engines()) engines_.push_back(std::move(engine));
  for (auto& engine : detail::make_pointwise_engines()) engines_.push_back(std::move(engine));
}

std::string TunekitEngineProvider::catalogue_version() const {
  return fmt::format("tunekit-{}-engines-4", cpu::kLibraryVersion);
}

Error register_tunekit_engines(graph::EngineRegistry& registry) {
  return registry.add_provider(TunekitEngineProvider());
}

}  // namespace tunekit::engines
