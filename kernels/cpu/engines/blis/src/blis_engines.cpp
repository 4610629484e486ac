// The BLIS matmul engine, on BLIS's typed expert API.
#include "tunekit/engines/blis_engines.hpp"

#include <blis.h>
#include <fmt/format.h>

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

std::int64_t scratch_bytes(const MatmulPattern& pattern, std::int64_t threads) {
  return threads * epilogue_scratch_floats(pattern.activation, pattern.n) * static_cast<std::int64_t>(sizeof(float));
}

// BLIS takes a row and a column stride for each matrix: a transposed
// operand is the same matrix with the two swapped.
struct Strides {
  inc_t row, column;
};
Strides strides(const MatrixOperand& x) {
  return x.transposed ? Strides{1, static_cast<inc_t>(x.ld)} : Strides{static_cast<inc_t>(x.ld), 1};
}

class BlisMatmul final : public ExecutionKernel {
 public:
  BlisMatmul(MatmulPattern pattern, int threads, std::int64_t workspace)
      : pattern_(pattern), threads_(threads), workspace_(workspace) {}
  std::int64_t workspace_size() const override { return workspace_; }
  Error execute(const ExecutionArguments& args) override {
    if (workspace_ > 0 && (args.workspace == nullptr || args.workspace_size < workspace_)) {
      return {ErrorCode::INVALID_VALUE, fmt::format("needs {} bytes of workspace", workspace_)};
    }
    Result<MatmulBuffers> x = find_buffers(pattern_, args.variant_pack);
    if (!x.ok()) return x.error();
    rntm_t runtime = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(threads_, &runtime);
    float one = 1.0f;
    float zero = 0.0f;
    const Strides a = strides(pattern_.a);
    const Strides b = strides(pattern_.b);
    // BLIS's API takes non-const pointers; it does not write A or B.
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, pattern_.m, pattern_.n, pattern_.k, &one,
                 const_cast<float*>(x->a), a.row, a.column, const_cast<float*>(x->b), b.row, b.column, &zero, x->c,
                 static_cast<inc_t>(pattern_.ldc), 1, nullptr, &runtime);
    apply_epilogue(pattern_, x->bias, x->c, threads_, static_cast<float*>(args.workspace));
    return Error::ok();
  }

 private:
  MatmulPattern pattern_;
  int threads_;
  std::int64_t workspace_;
};

class BlisMatmulEngine final : public graph::Engine {
 public:
  explicit BlisMatmulEngine(EngineDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  const EngineDescriptor& descriptor() const override { return descriptor_; }
  Error check_applicable(const OperationGraph& graph, const platform::Device& device) const override {
    if (device.kind() != platform::DeviceKind::CPU) return {ErrorCode::NOT_SUPPORTED, "runs on the CPU only"};
    return match_matmul(graph).error();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const override {
    Result<MatmulPattern> pattern = match_matmul(graph);
    if (!pattern.ok()) return pattern.error();
    return scratch_bytes(*pattern, knobs.get_int("threads", 1));
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                   platform::Device& device) const override {
    if (device.kind() != platform::DeviceKind::CPU) return Error(ErrorCode::NOT_SUPPORTED, "runs on the CPU only");
    Result<MatmulPattern> pattern = match_matmul(graph);
    if (!pattern.ok()) return pattern.error();
    const int threads = engine_threads(device, knobs.get_int("threads", 1));
    return std::unique_ptr<ExecutionKernel>(
        new BlisMatmul(*pattern, threads, scratch_bytes(*pattern, knobs.get_int("threads", 1))));
  }

 private:
  EngineDescriptor descriptor_;
};

}  // namespace

std::string blis_version() { return bli_info_get_version_str(); }

std::string blis_configuration() { return bli_arch_string(bli_arch_query_id()); }

BlisEngineProvider::BlisEngineProvider() {
  engines_.push_back(std::make_shared<BlisMatmulEngine>(EngineDescriptor{
      kMatmulBlisEngine,
      "CPU_MATMUL_BLIS",
      {threads_knob()},
      30,
      fmt::format("BLIS {} bli_sgemm_ex (configuration {}), then tunekit's bias and activation", blis_version(),
                  blis_configuration())}));
}

std::string BlisEngineProvider::catalogue_version() const {
  return fmt::format("blis-{}-{}-engines-1", blis_version(), blis_configuration());
}

Error register_blis_engines(graph::EngineRegistry& registry) { return registry.add_provider(BlisEngineProvider()); }

}  // namespace tunekit::engines
