// The BLIS matmul engine, on BLIS's typed expert API.
#include "tunekit/engines/blis_engines.hpp"

#include <blis.h>
#include <fmt/format.h>

#include "tunekit/engines/matmul_epilogue.hpp"
#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/tunekit_engines.hpp"
#include "tunekit/platform/cpu_descriptor.hpp"

namespace tunekit::engines {
namespace {

using graph::EngineDescriptor;
using platform::CpuFeature;

constexpr const char* kConfigurationKnob = "configuration";
constexpr const char* kDetected = "auto";

// BLIS takes a row and a column stride for each matrix: a transposed
// operand is the same matrix with the two swapped.
struct Strides {
  inc_t row, column;
};
Strides strides(const MatrixOperand& x) {
  return x.transposed ? Strides{1, static_cast<inc_t>(x.ld)} : Strides{static_cast<inc_t>(x.ld), 1};
}

// `context` null: the configuration BLIS detected.
Error blis_product(const MatmulPattern& p, const MatmulBuffers& x, int threads, cntx_t* context) {
  rntm_t runtime = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(threads, &runtime);
  float one = 1.0f;
  float zero = 0.0f;
  const Strides a = strides(p.a);
  const Strides b = strides(p.b);
  // BLIS's API takes non-const pointers; it does not write A or B.
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, p.m, p.n, p.k, &one, const_cast<float*>(x.a), a.row, a.column,
               const_cast<float*>(x.b), b.row, b.column, &zero, x.c, static_cast<inc_t>(p.ldc), 1, context, &runtime);
  return Error::ok();
}

#if TUNEKIT_BLIS_CONFIGURATIONS
// The x86-64 configurations a BLIS build may hold and the instructions
// their kernels use. Left out: knl (AVX-512 PF/ER, Xeon Phi only) and the
// Bulldozer family (FMA4, which no processor since Zen 1 has).
struct KnownConfiguration {
  arch_t id;
  platform::CpuFeatureSet needs;
};
const KnownConfiguration kKnownConfigurations[] = {
    {BLIS_ARCH_SKX,
     {CpuFeature::AVX512F, CpuFeature::AVX512DQ, CpuFeature::AVX512BW, CpuFeature::AVX512VL, CpuFeature::FMA}},
    {BLIS_ARCH_ZEN3, {CpuFeature::AVX2, CpuFeature::FMA}},
    {BLIS_ARCH_ZEN2, {CpuFeature::AVX2, CpuFeature::FMA}},
    {BLIS_ARCH_ZEN, {CpuFeature::AVX2, CpuFeature::FMA}},
    {BLIS_ARCH_HASWELL, {CpuFeature::AVX2, CpuFeature::FMA}},
    {BLIS_ARCH_SANDYBRIDGE, {CpuFeature::AVX}},
    {BLIS_ARCH_PENRYN, {CpuFeature::SSSE3}},
    {BLIS_ARCH_GENERIC, {}},
};
#endif

}  // namespace

std::string blis_version() { return bli_info_get_version_str(); }

std::string blis_configuration() { return bli_arch_string(bli_arch_query_id()); }

std::vector<BlisConfiguration> blis_configurations() {
  std::vector<BlisConfiguration> found;
#if TUNEKIT_BLIS_CONFIGURATIONS
  bli_init();  // registers the configurations the lookups below read
  const platform::CpuFeatureSet& features = platform::GetCpuDescriptor().features;
  for (const KnownConfiguration& known : kKnownConfigurations) {
    // The detected one is "auto": offering it by name too would time it twice.
    if (known.id == bli_arch_query_id() || !known.needs.is_subset_of(features)) continue;
    cntx_t* context = bli_gks_lookup_nat_cntx(known.id);
    if (context == nullptr) continue;  // not built into this BLIS
    found.push_back({bli_arch_string(known.id), context});
  }
#endif
  return found;
}

BlisEngineProvider::BlisEngineProvider() {
  graph::Knob configuration;
  configuration.id = kConfigurationKnob;
  configuration.type = graph::KnobType::STRING;
  configuration.default_value = std::string(kDetected);
  configuration.allowed_values = {std::string(kDetected)};
  std::vector<BlisConfiguration> configurations = blis_configurations();
  std::string names;
  for (const BlisConfiguration& c : configurations) {
    configuration.allowed_values.push_back(c.name);
    names += (names.empty() ? "" : ", ") + c.name;
  }
  configuration.description = fmt::format(
      "the BLIS configuration whose context (block sizes and micro-kernels) runs the product: auto (the one BLIS "
      "detected, {}) or another one built into this BLIS that this processor can run{}",
      blis_configuration(), names.empty() ? " (none: this BLIS exports no configuration lookup)" : ": " + names);
  engines_.push_back(product_then_epilogue_engine(
      EngineDescriptor{kMatmulBlisEngine,
                       "CPU_MATMUL_BLIS",
                       {threads_knob(), configuration},
                       30,
                       fmt::format("BLIS {} bli_sgemm_ex (configuration {} unless the knob names another), then "
                                   "tunekit's bias and activation",
                                   blis_version(), blis_configuration())},
      match_matmul,
      [configurations](const MatmulPattern&, const graph::KnobValues& knobs, int) -> Result<MatmulProduct> {
        const std::string wanted = knobs.get_string(kConfigurationKnob, kDetected);
        cntx_t* context = nullptr;
        if (wanted != kDetected) {
          for (const BlisConfiguration& c : configurations) {
            if (c.name == wanted) context = static_cast<cntx_t*>(c.context);
          }
          if (context == nullptr) {
            return not_supported(fmt::format("BLIS configuration '{}' is not one this BLIS and processor run", wanted));
          }
        }
        return MatmulProduct([context](const MatmulPattern& p, const MatmulBuffers& x, int threads) {
          return blis_product(p, x, threads, context);
        });
      }));
}

std::string BlisEngineProvider::catalogue_version() const {
  return fmt::format("blis-{}-{}-engines-2", blis_version(), blis_configuration());
}

Error register_blis_engines(graph::EngineRegistry& registry) { return registry.add_provider(BlisEngineProvider()); }

}  // namespace tunekit::engines
