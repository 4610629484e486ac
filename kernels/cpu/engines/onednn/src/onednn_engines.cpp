// The oneDNN matmul engine: one matmul primitive per plan, the epilogue as
// its bias and an eltwise post-op. oneDNN reports errors by throwing
// dnnl::error; every call is inside a try that turns it into an Error.
#include "tunekit/engines/onednn_engines.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "onednn_common.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using graph::ExecutionArguments;
using graph::ExecutionKernel;
using graph::KnobValues;
using graph::OperationGraph;
using dims = dnnl::memory::dims;
using data_type = dnnl::memory::data_type;

using detail::onednn_cpu_engine;
using detail::onednn_error;

data_type element_type(const MatmulPattern& p) { return p.type == DataType::BFLOAT16 ? data_type::bf16 : data_type::f32; }

// A matrix operand, or for a batch of products (rank 3) a batch of them:
// one matrix for every batch (batch stride 0) is a batch dim of 1, which
// oneDNN broadcasts.
dnnl::memory::desc operand_desc(const MatmulPattern& p, const MatrixOperand& x, std::int64_t rows,
                                std::int64_t columns, std::int64_t batch_stride) {
  const dims strides = x.transposed ? dims{1, x.ld} : dims{x.ld, 1};
  if (p.batch == 1) return dnnl::memory::desc(dims{rows, columns}, element_type(p), strides);
  const std::int64_t batches = batch_stride > 0 ? p.batch : 1;
  const std::int64_t stride = batch_stride > 0 ? batch_stride : rows * columns;
  return dnnl::memory::desc(dims{batches, rows, columns}, element_type(p), dims{stride, strides[0], strides[1]});
}

struct Descs {
  dnnl::memory::desc a, b, bias, c;
};

Descs descs(const MatmulPattern& p) {
  const data_type type = element_type(p);
  Descs d{operand_desc(p, p.a, p.m, p.k, p.a_batch_stride), operand_desc(p, p.b, p.k, p.n, p.b_batch_stride), {},
          p.batch == 1 ? dnnl::memory::desc(dims{p.m, p.n}, type, dims{p.ldc, 1})
                       : dnnl::memory::desc(dims{p.batch, p.m, p.n}, type, dims{p.c_batch_stride, p.ldc, 1})};
  if (p.bias_uid >= 0) {
    d.bias = p.batch == 1 ? dnnl::memory::desc(dims{1, p.n}, type, dims{p.n, 1})
                          : dnnl::memory::desc(dims{1, 1, p.n}, type, dims{p.n, p.n, 1});
  }
  return d;
}

// The pattern's buffers as oneDNN takes them, whatever their element type.
struct RawBuffers {
  void *a = nullptr, *b = nullptr, *bias = nullptr, *c = nullptr;
};
template <typename T>
RawBuffers raw(const MatmulBuffersOf<T>& x) {
  return {const_cast<T*>(x.a), const_cast<T*>(x.b), const_cast<T*>(x.bias), x.c};
}
Result<RawBuffers> raw_buffers(const MatmulPattern& p, const graph::VariantPack& pack) {
  if (p.type == DataType::BFLOAT16) {
    Result<Bfloat16MatmulBuffers> x = find_buffers_of<std::uint16_t>(p, pack);
    if (!x.ok()) return x.error();
    return raw(*x);
  }
  Result<MatmulBuffers> x = find_buffers(p, pack);
  if (!x.ok()) return x.error();
  return raw(*x);
}

dnnl::primitive_attr attributes(const MatmulPattern& p) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::algorithm algorithm = dnnl::algorithm::undef;
  switch (p.activation) {
    case Activation::NONE: break;
    case Activation::RELU: algorithm = dnnl::algorithm::eltwise_relu; break;
    case Activation::GELU: algorithm = dnnl::algorithm::eltwise_gelu_erf; break;
    case Activation::SIGMOID: algorithm = dnnl::algorithm::eltwise_logistic; break;
    case Activation::TANH: algorithm = dnnl::algorithm::eltwise_tanh; break;
  }
  if (algorithm != dnnl::algorithm::undef) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, algorithm, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// The primitive descriptor of the `implementation`-th distinct
// implementation in oneDNN's list, held by pointer (see advance_to_distinct).
using PrimitiveDesc = std::shared_ptr<dnnl::matmul::primitive_desc>;
Result<PrimitiveDesc> primitive_desc(const MatmulPattern& p, std::int64_t implementation, int threads) {
  try {
    // oneDNN decomposes the work for the team it sees when the descriptor
    // and the primitive are created, and runs with that team.
    detail::OnednnTeam team(threads);
    const Descs d = descs(p);
    const dnnl::matmul::desc desc = p.bias_uid >= 0 ? dnnl::matmul::desc(d.a, d.b, d.bias, d.c)
                                                    : dnnl::matmul::desc(d.a, d.b, d.c);
    auto pd = std::make_shared<dnnl::matmul::primitive_desc>(desc, attributes(p), onednn_cpu_engine());
    TUNEKIT_RETURN_IF_ERROR(detail::advance_to_distinct(*pd, implementation, p.describe()));
    return pd;
  } catch (const dnnl::error& e) {
    return onednn_error(e, "matmul");
  }
}

class OnednnMatmul final : public ExecutionKernel {
 public:
  OnednnMatmul(MatmulPattern pattern, PrimitiveDesc pd, int threads)
      : pattern_(pattern), pd_(std::move(pd)), primitive_(*pd_), threads_(threads) {}
  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(pd_->scratchpad_desc().get_size()); }
  Error execute(const ExecutionArguments& args) override {
    TUNEKIT_RETURN_IF_ERROR(check_workspace(args, workspace_size()));
    Result<RawBuffers> x = raw_buffers(pattern_, args.variant_pack);
    if (!x.ok()) return x.error();
    try {
      const Descs d = descs(pattern_);
      const dnnl::engine& engine = onednn_cpu_engine();
      std::unordered_map<int, dnnl::memory> arguments{
          {DNNL_ARG_SRC, dnnl::memory(d.a, engine, x->a)},
          {DNNL_ARG_WEIGHTS, dnnl::memory(d.b, engine, x->b)},
          {DNNL_ARG_DST, dnnl::memory(d.c, engine, x->c)},
          {DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_->scratchpad_desc(), engine, args.workspace)}};
      if (pattern_.bias_uid >= 0) arguments.emplace(DNNL_ARG_BIAS, dnnl::memory(d.bias, engine, x->bias));
      dnnl::stream stream(engine);
      detail::OnednnTeam team(threads_);
      primitive_.execute(stream, arguments);
      stream.wait();
    } catch (const dnnl::error& e) {
      return onednn_error(e, "matmul execution");
    }
    return Error::ok();
  }

 private:
  MatmulPattern pattern_;
  PrimitiveDesc pd_;
  dnnl::matmul primitive_;
  int threads_;
};

// bfloat16 where this oneDNN has an implementation for the processor (2.6
// needs AVX-512): asked of oneDNN itself, whose refusal is the reason.
Result<MatmulPattern> match_for_onednn(const OperationGraph& graph) {
  Result<MatmulPattern> p = match_matmul_of(graph, {DataType::FLOAT, DataType::BFLOAT16});
  if (!p.ok()) return p;
  TUNEKIT_RETURN_IF_ERROR(detail::check_onednn_sizes({p->m, p->n, p->k, p->a.ld, p->b.ld, p->ldc, p->m * p->k,
                                                       p->k * p->n, p->m * p->ldc, p->batch * p->c_batch_stride,
                                                       p->batch * p->a_batch_stride, p->batch * p->b_batch_stride},
                                                      p->describe()));
  if (p->type == DataType::BFLOAT16) {
    if (Result<PrimitiveDesc> pd = primitive_desc(*p, 0, 1); !pd.ok()) {
      return not_supported(fmt::format("oneDNN {} has no bfloat16 matmul on this processor ({}): {}",
                                       onednn_version(), onednn_isa(), pd.error().message()));
    }
  }
  return p;
}

// Knob values oneDNN has no implementation for estimate nothing: the
// candidate is refused when it compiles, with oneDNN's reason, and the other
// candidates of a sweep stay.
Result<std::int64_t> matmul_workspace(const MatmulPattern& p, const KnobValues& knobs) {
  Result<PrimitiveDesc> pd =
      primitive_desc(p, knobs.get_int("implementation", 0), static_cast<int>(knobs.get_int("threads", 1)));
  if (!pd.ok()) return std::int64_t{0};
  return static_cast<std::int64_t>((*pd)->scratchpad_desc().get_size());
}

Result<std::unique_ptr<ExecutionKernel>> make_matmul(const MatmulPattern& p, const KnobValues& knobs, int threads) {
  Result<PrimitiveDesc> pd = primitive_desc(p, knobs.get_int("implementation", 0), threads);
  if (!pd.ok()) return pd.error();
  try {
    detail::OnednnTeam team(threads);
    return std::unique_ptr<ExecutionKernel>(new OnednnMatmul(p, std::move(pd).value(), threads));
  } catch (const dnnl::error& e) {
    return onednn_error(e, "matmul primitive");
  }
}

}  // namespace

namespace detail {

const dnnl::engine& onednn_cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

Error onednn_error(const dnnl::error& e, const char* what) {
  return {ErrorCode::NOT_SUPPORTED, fmt::format("oneDNN {}: {} (status {})", what, e.what(), static_cast<int>(e.status))};
}

graph::Knob onednn_implementation_knob() {
  graph::Knob knob;
  knob.id = "implementation";
  knob.type = graph::KnobType::INT;
  knob.default_value = std::int64_t{0};
  knob.min_value = std::int64_t{0};
  knob.max_value = kOnednnMaximumImplementation;
  knob.description = "position in oneDNN's list of distinct implementations for the shape (0: its first choice)";
  return knob;
}

}  // namespace detail

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

std::string onednn_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return fmt::format("isa{}", static_cast<int>(dnnl::get_effective_cpu_isa()));
  }
}

std::vector<std::string> onednn_matmul_implementations(const MatmulPattern& p) {
  std::vector<std::string> names;
  for (std::int64_t i = 0; i <= detail::kOnednnMaximumImplementation; ++i) {
    Result<PrimitiveDesc> pd = primitive_desc(p, i, omp_get_max_threads());
    if (!pd.ok()) break;
    names.emplace_back((*pd)->impl_info_str());
  }
  return names;
}

OnednnEngineProvider::OnednnEngineProvider() {
  engines_.push_back(std::make_shared<PatternEngine<MatmulPattern>>(
      EngineDescriptor{kMatmulOnednnEngine,
                       "CPU_MATMUL_ONEDNN",
                       {threads_knob(), detail::onednn_implementation_knob()},
                       40,
                       fmt::format("oneDNN {} matmul ({}) with the bias and activation fused as post-ops",
                                   onednn_version(), onednn_isa())},
      match_for_onednn, matmul_workspace, make_matmul));
  engines_.push_back(detail::make_onednn_conv_engine());
  engines_.push_back(detail::make_onednn_layernorm_engine());
  engines_.push_back(detail::make_onednn_reduction_engine());
  engines_.push_back(detail::make_onednn_rmsnorm_engine());
  engines_.push_back(detail::make_onednn_softmax_engine());
  engines_.push_back(detail::make_onednn_pointwise_engine());
}

std::string OnednnEngineProvider::catalogue_version() const {
  return fmt::format("onednn-{}-{}-engines-3", onednn_version(), onednn_isa());
}

Error register_onednn_engines(graph::EngineRegistry& registry) {
  return registry.add_provider(OnednnEngineProvider());
}

}  // namespace tunekit::engines
