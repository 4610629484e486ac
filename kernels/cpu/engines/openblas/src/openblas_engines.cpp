// The OpenBLAS matmul engine.
#include "tunekit/engines/openblas_engines.hpp"

#include <cblas.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <sstream>

#include "tunekit/engines/matmul_epilogue.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;

CBLAS_TRANSPOSE transpose(const MatrixOperand& x) { return x.transposed ? CblasTrans : CblasNoTrans; }

std::int64_t scratch_bytes(const MatmulPattern& pattern, std::int64_t threads) {
  return threads * epilogue_scratch_floats(pattern.activation, pattern.n) * static_cast<std::int64_t>(sizeof(float));
}

class OpenblasMatmul final : public ExecutionKernel {
 public:
  OpenblasMatmul(MatmulPattern pattern, int threads, std::int64_t workspace)
      : pattern_(pattern), threads_(threads), workspace_(workspace) {}
  std::int64_t workspace_size() const override { return workspace_; }
  Error execute(const ExecutionArguments& args) override {
    if (workspace_ > 0 && (args.workspace == nullptr || args.workspace_size < workspace_)) {
      return {ErrorCode::INVALID_VALUE, fmt::format("needs {} bytes of workspace", workspace_)};
    }
    Result<MatmulBuffers> x = find_buffers(pattern_, args.variant_pack);
    if (!x.ok()) return x.error();
    // OpenBLAS's thread count is process-wide: set it for every run, since
    // another engine (or another plan of this one) may have changed it.
    openblas_set_num_threads(threads_);
    cblas_sgemm(CblasRowMajor, transpose(pattern_.a), transpose(pattern_.b), static_cast<blasint>(pattern_.m),
                static_cast<blasint>(pattern_.n), static_cast<blasint>(pattern_.k), 1.0f, x->a,
                static_cast<blasint>(pattern_.a.ld), x->b, static_cast<blasint>(pattern_.b.ld), 0.0f, x->c,
                static_cast<blasint>(pattern_.ldc));
    apply_epilogue(pattern_, x->bias, x->c, threads_, static_cast<float*>(args.workspace));
    return Error::ok();
  }

 private:
  MatmulPattern pattern_;
  int threads_;
  std::int64_t workspace_;
};

// blasint is 32-bit in Debian's OpenBLAS: larger dimensions do not apply.
Result<MatmulPattern> match_for_openblas(const OperationGraph& graph) {
  Result<MatmulPattern> pattern = match_matmul(graph);
  if (!pattern.ok()) return pattern;
  constexpr std::int64_t kLimit = (std::int64_t{1} << (8 * sizeof(blasint) - 1)) - 1;
  for (std::int64_t v : {pattern->m, pattern->n, pattern->k, pattern->a.ld, pattern->b.ld, pattern->ldc}) {
    if (v > kLimit) {
      return Error(ErrorCode::NOT_SUPPORTED, fmt::format("a dimension of {} exceeds OpenBLAS's {}-bit integers",
                                                         v, 8 * sizeof(blasint)));
    }
  }
  return pattern;
}

class OpenblasMatmulEngine final : public graph::Engine {
 public:
  explicit OpenblasMatmulEngine(EngineDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device& device) const override {
    if (device.kind() != platform::DeviceKind::CPU) return {ErrorCode::NOT_SUPPORTED, "runs on the CPU only"};
    return match_for_openblas(graph).error();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const override {
    Result<MatmulPattern> pattern = match_for_openblas(graph);
    if (!pattern.ok()) return pattern.error();
    return scratch_bytes(*pattern, knobs.get_int("threads", 1));
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                   platform::Device& device) const override {
    TUNEKIT_RETURN_IF_ERROR(check_applicable(graph, device));
    Result<MatmulPattern> pattern = match_for_openblas(graph);
    const int threads = engine_threads(device, knobs.get_int("threads", 1));
    return std::unique_ptr<ExecutionKernel>(
        new OpenblasMatmul(*pattern, threads, scratch_bytes(*pattern, knobs.get_int("threads", 1))));
  }

 private:
  EngineDescriptor descriptor_;
};

}  // namespace

std::string openblas_version() {
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
  std::istringstream words(openblas_get_config());
  std::string name, version;
  words >> name >> version;
  return version.empty() ? "unknown" : version;
}

std::string openblas_core_name() { return openblas_get_corename(); }

std::string openblas_sgemm_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cblas_sgemm), &info) == 0 || info.dli_fname == nullptr) return "unknown";
  return info.dli_fname;
}

OpenblasEngineProvider::OpenblasEngineProvider() {
  engines_.push_back(std::make_shared<OpenblasMatmulEngine>(EngineDescriptor{
      kMatmulOpenblasEngine,
      "CPU_MATMUL_OPENBLAS",
      {threads_knob()},
      20,
      fmt::format("OpenBLAS {} cblas_sgemm ({} kernels), then tunekit's bias and activation", openblas_version(),
                  openblas_core_name())}));
}

std::string OpenblasEngineProvider::catalogue_version() const {
  return fmt::format("openblas-{}-{}-engines-1", openblas_version(), openblas_core_name());
}

Error register_openblas_engines(graph::EngineRegistry& registry) {
  return registry.add_provider(OpenblasEngineProvider());
}

}  // namespace tunekit::engines
