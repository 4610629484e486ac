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
using graph::OperationGraph;

CBLAS_TRANSPOSE transpose(const MatrixOperand& x) { return x.transposed ? CblasTrans : CblasNoTrans; }

using Sgemm = decltype(&cblas_sgemm);

// OpenBLAS's own cblas_sgemm. BLIS exports one too, and which of the two a
// plain call binds to depends on the order in which the program links the
// libraries: the engine takes it from the library that defines
// openblas_get_config, which only OpenBLAS does.
Sgemm openblas_sgemm() {
  static const Sgemm sgemm = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&openblas_get_config), &info) != 0 && info.dli_fname != nullptr) {
      if (void* library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) {
        if (void* symbol = dlsym(library, "cblas_sgemm")) return reinterpret_cast<Sgemm>(symbol);
      }
    }
    return &cblas_sgemm;
  }();
  return sgemm;
}

Error openblas_product(const MatmulPattern& p, const MatmulBuffers& x, int threads) {
  // OpenBLAS's thread count is process-wide: set it for every run, since
  // another engine (or another plan of this one) may have changed it.
  openblas_set_num_threads(threads);
  openblas_sgemm()(CblasRowMajor, transpose(p.a), transpose(p.b), static_cast<blasint>(p.m), static_cast<blasint>(p.n),
              static_cast<blasint>(p.k), 1.0f, x.a, static_cast<blasint>(p.a.ld), x.b, static_cast<blasint>(p.b.ld),
              0.0f, x.c, static_cast<blasint>(p.ldc));
  return Error::ok();
}

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
  if (dladdr(reinterpret_cast<void*>(openblas_sgemm()), &info) == 0 || info.dli_fname == nullptr) return "unknown";
  return info.dli_fname;
}

OpenblasEngineProvider::OpenblasEngineProvider() {
  engines_.push_back(product_then_epilogue_engine(
      EngineDescriptor{kMatmulOpenblasEngine,
                       "CPU_MATMUL_OPENBLAS",
                       {threads_knob()},
                       20,
                       fmt::format("OpenBLAS {} cblas_sgemm ({} kernels), then tunekit's bias and activation",
                                   openblas_version(), openblas_core_name())},
      match_for_openblas, openblas_product));
}

std::string OpenblasEngineProvider::catalogue_version() const {
  return fmt::format("openblas-{}-{}-engines-1", openblas_version(), openblas_core_name());
}

Error register_openblas_engines(graph::EngineRegistry& registry) {
  return registry.add_provider(OpenblasEngineProvider());
}

}  // namespace tunekit::engines
