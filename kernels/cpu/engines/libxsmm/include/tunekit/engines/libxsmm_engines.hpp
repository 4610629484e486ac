// The libxsmm CPU engine:
//   CPU_MATMUL_LIBXSMM (500): libxsmm's JIT-generated kernels for small
//     matrices (register-blocked, without cache blocking) on the matmul
//     pattern (matmul_pattern.hpp) with neither operand transposed and every
//     dim at most 4096: C's rows split between the threads, one kernel for
//     the block of rows (and one for the last, shorter block), dispatched
//     when the plan compiles (libxsmm's JIT generates them the first time:
//     compile time, not the first execution's), then tunekit's bias and
//     activation. Knob: threads.
// The catalogue version names libxsmm's version and the instruction set
// its code generator targets on this processor. libxsmm's initialization
// exports OMP_PROC_BIND=TRUE, which would bind the OpenMP threads of every
// program this process starts; the provider removes it again (unless the
// process was started with it).
#pragma once

#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kMatmulLibxsmmEngine = 500;

std::string libxsmm_version();  // "1.17"
std::string libxsmm_target();   // the code generator's target: "hsw" (AVX2), "skx", "clx", ...

class LibxsmmEngineProvider final : public graph::EngineProvider {
 public:
  LibxsmmEngineProvider();
  std::string name() const override { return "libxsmm"; }
  // "libxsmm-1.17-hsw-engines-1".
  std::string catalogue_version() const override;
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

Error register_libxsmm_engines(graph::EngineRegistry& registry);

}  // namespace tunekit::engines
