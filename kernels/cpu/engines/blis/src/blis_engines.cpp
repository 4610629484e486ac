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

// BLIS takes a row and a column stride for each matrix: a transposed
// operand is the same matrix with the two swapped.
struct Strides {
  inc_t row, column;
};
Strides strides(const MatrixOperand& x) {
  return x.transposed ? Strides{1, static_cast<inc_t>(x.ld)} : Strides{static_cast<inc_t>(x.ld), 1};
}

Error blis_product(const MatmulPattern& p, const MatmulBuffers& x, int threads) {
  rntm_t runtime = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(threads, &runtime);
  float one = 1.0f;
  float zero = 0.0f;
  const Strides a = strides(p.a);
  const Strides b = strides(p.b);
  // BLIS's API takes non-const pointers; it does not write A or B.
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, p.m, p.n, p.k, &one, const_cast<float*>(x.a), a.row, a.column,
               const_cast<float*>(x.b), b.row, b.column, &zero, x.c, static_cast<inc_t>(p.ldc), 1, nullptr, &runtime);
  return Error::ok();
}

}  // namespace

std::string blis_version() { return bli_info_get_version_str(); }

std::string blis_configuration() { return bli_arch_string(bli_arch_query_id()); }

BlisEngineProvider::BlisEngineProvider() {
  engines_.push_back(product_then_epilogue_engine(
      EngineDescriptor{kMatmulBlisEngine,
                       "CPU_MATMUL_BLIS",
                       {threads_knob()},
                       30,
                       fmt::format("BLIS {} bli_sgemm_ex (configuration {}), then tunekit's bias and activation",
                                   blis_version(), blis_configuration())},
      match_matmul, blis_product));
}

std::string BlisEngineProvider::catalogue_version() const {
  return fmt::format("blis-{}-{}-engines-1", blis_version(), blis_configuration());
}

Error register_blis_engines(graph::EngineRegistry& registry) { return registry.add_provider(BlisEngineProvider()); }

}  // namespace tunekit::engines
