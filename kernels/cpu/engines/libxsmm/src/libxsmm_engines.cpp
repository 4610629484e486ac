// The libxsmm matmul engine. libxsmm's kernels are column-major: the
// row-major C = A x B of the pattern is the column-major C^T = B^T x A^T,
// so each kernel is dispatched for (n, rows, k) with B as its first operand.
#include "tunekit/engines/libxsmm_engines.hpp"

#include <fmt/format.h>
#include <libxsmm.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "tunekit/engines/matmul_epilogue.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using graph::OperationGraph;

constexpr std::int64_t kLargestDim = 4096;

// The kernel for `rows` rows of C (nullptr when libxsmm has none).
libxsmm_smmfunction row_block_kernel(const MatmulPattern& p, std::int64_t rows) {
  const auto m = static_cast<libxsmm_blasint>(p.n), n = static_cast<libxsmm_blasint>(rows),
             k = static_cast<libxsmm_blasint>(p.k);
  const auto lda = static_cast<libxsmm_blasint>(p.b.ld), ldb = static_cast<libxsmm_blasint>(p.a.ld),
             ldc = static_cast<libxsmm_blasint>(p.ldc);
  const float alpha = 1.0f, beta = 0.0f;
  return libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, nullptr, nullptr);
}

Error libxsmm_product(const MatmulPattern& p, const MatmulBuffers& x, int threads) {
  const std::int64_t team = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, p.m));
  const std::int64_t block = (p.m + team - 1) / team;
  const std::int64_t last = p.m - block * (team - 1);
  const libxsmm_smmfunction full = row_block_kernel(p, block);
  const libxsmm_smmfunction tail = last == block ? full : row_block_kernel(p, last);
  if (!full || (last > 0 && !tail)) {
    return {ErrorCode::NOT_SUPPORTED, fmt::format("libxsmm has no kernel for {} x {} x {}", block, p.n, p.k)};
  }
#pragma omp parallel for num_threads(static_cast<int>(team)) schedule(static)
  for (std::int64_t t = 0; t < team; ++t) {
    const std::int64_t row = t * block;
    if (row >= p.m) continue;
    const libxsmm_smmfunction kernel = row + block <= p.m ? full : tail;
    kernel(x.b, x.a + row * p.a.ld, x.c + row * p.ldc);
  }
  return Error::ok();
}

Result<MatmulPattern> match_for_libxsmm(const OperationGraph& graph) {
  Result<MatmulPattern> pattern = match_matmul(graph);
  if (!pattern.ok()) return pattern;
  if (pattern->a.transposed || pattern->b.transposed) {
    return Error(ErrorCode::NOT_SUPPORTED, "a transposed operand (libxsmm's kernels here take A and B as stored)");
  }
  for (std::int64_t v : {pattern->m, pattern->n, pattern->k}) {
    if (v > kLargestDim) {
      return Error(ErrorCode::NOT_SUPPORTED,
                   fmt::format("a dimension of {}: libxsmm's kernels are for small matrices (at most {} here)", v,
                               kLargestDim));
    }
  }
  return pattern;
}

// libxsmm's initialization exports OMP_PROC_BIND=TRUE when no affinity
// variable is set (and I_MPI_SHM_HEAP=1 under MPI). This process's OpenMP
// runtime has read its environment by then, but every program it starts
// would bind its OpenMP threads: a child's main thread pinned to one CPU,
// its tunekit device seeing one thread. Those variables are removed unless
// they were there when the process started (/proc/self/environ keeps the
// environment it was given).
void undo_libxsmm_environment() {
  std::ifstream initial("/proc/self/environ", std::ios::binary);
  if (!initial) return;
  const std::string text((std::istreambuf_iterator<char>(initial)), std::istreambuf_iterator<char>());
  for (const char* name : {"OMP_PROC_BIND", "I_MPI_SHM_HEAP"}) {
    const std::string prefix = std::string(name) + "=";
    bool given = text.compare(0, prefix.size(), prefix) == 0;
    for (std::size_t at = text.find('\0'); !given && at != std::string::npos; at = text.find('\0', at + 1)) {
      given = text.compare(at + 1, prefix.size(), prefix) == 0;
    }
    if (!given) unsetenv(name);
  }
}

// libxsmm, initialized once, with the environment as the process had it.
void initialize_libxsmm() {
  static const bool initialized = [] {
    libxsmm_init();
    undo_libxsmm_environment();
    return true;
  }();
  (void)initialized;
}

}  // namespace

std::string libxsmm_version() { return fmt::format("{}.{}", LIBXSMM_VERSION_MAJOR, LIBXSMM_VERSION_MINOR); }

std::string libxsmm_target() {
  initialize_libxsmm();
  return libxsmm_get_target_arch();
}

LibxsmmEngineProvider::LibxsmmEngineProvider() {
  initialize_libxsmm();
  engines_.push_back(product_then_epilogue_engine(
      EngineDescriptor{kMatmulLibxsmmEngine,
                       "CPU_MATMUL_LIBXSMM",
                       {threads_knob()},
                       25,
                       fmt::format("libxsmm {} JIT kernels ({}) over blocks of C's rows, then tunekit's bias and "
                                   "activation",
                                   libxsmm_version(), libxsmm_target())},
      match_for_libxsmm, libxsmm_product));
}

std::string LibxsmmEngineProvider::catalogue_version() const {
  return fmt::format("libxsmm-{}-{}-engines-1", libxsmm_version(), libxsmm_target());
}

Error register_libxsmm_engines(graph::EngineRegistry& registry) { return registry.add_provider(LibxsmmEngineProvider()); }

}  // namespace tunekit::engines
