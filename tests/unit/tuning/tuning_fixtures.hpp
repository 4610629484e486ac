// Shared fixtures of the tuning tests: a hand-written typed configuration
// (what the generator emits from a tuning spec), its binding, and imaginary
// processors built by hand.
#pragma once

#include <cstdint>
#include <string>

#include "tunekit/tuning/tuning_binding.hpp"
#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::tuning::testing {

struct GemmTuning {
  std::int64_t tile_m = 64;
  std::int64_t tile_n = 256;
  std::int64_t tile_k = 256;
  std::int64_t parallel_minimum_tasks = 2;
  double pack_ratio = 0.5;
  bool prepack = true;
  std::string algorithm = "blocked";
};

inline const TuningBinding<GemmTuning>& gemm_binding() {
  static const TuningBinding<GemmTuning> binding = [] {
    TuningBinding<GemmTuning> b;
    b.field("algorithm.tile_m", &GemmTuning::tile_m, FieldRules().at_least(1).at_most(4096).multiple(8))
        .field("algorithm.tile_n", &GemmTuning::tile_n, FieldRules().at_least(1).at_most(4096).multiple(8))
        .field("algorithm.tile_k", &GemmTuning::tile_k, FieldRules().at_least(1).at_most(4096))
        .field("parallel.minimum_tasks", &GemmTuning::parallel_minimum_tasks, FieldRules().at_least(1))
        .field("algorithm.pack_ratio", &GemmTuning::pack_ratio, FieldRules().at_least(0.0).at_most(1.0))
        .field("algorithm.prepack", &GemmTuning::prepack)
        .field("algorithm.kind", &GemmTuning::algorithm, FieldRules().one_of({"blocked", "packed", "naive"}))
        .constraint("algorithm.tile_m", ConstraintKind::LESS_EQUAL, "algorithm.tile_n")
        .constraint("algorithm.tile_m", ConstraintKind::DIVIDES, "algorithm.tile_n");
    return b;
  }();
  return binding;
}

inline KernelTuningKey gemm_key(DataType type = DataType::FLOAT) {
  return {"tunekit_test", "Gemm", "blocked_avx2", type, platform::DeviceKind::CPU, 3};
}

inline KernelTuningParameters params(const KernelTuningKey& key, std::map<std::string, TuningValue> values) {
  return {key, std::move(values)};
}

inline platform::CpuExecutionDescriptor processor(std::string vendor, std::uint32_t family, std::uint32_t model,
                                                  std::string uarch, platform::CpuFeatureSet features,
                                                  std::uint32_t threads = 8, std::uint32_t stepping = 1) {
  platform::CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = std::move(vendor);
  e.processor.family = family;
  e.processor.model = model;
  e.processor.stepping = stepping;
  e.processor.microarchitecture = std::move(uarch);
  e.processor.features = features;
  e.effective_threads = threads;
  e.numa_policy = {platform::NumaPolicyKind::DEFAULT, {}};
  return e;
}

inline platform::CpuExecutionDescriptor alder_lake(std::uint32_t threads = 8) {
  using F = platform::CpuFeature;
  return processor("Intel", 6, 0x97, "alder_lake", {F::SSE2, F::AVX, F::AVX2, F::FMA, F::AVX_VNNI}, threads, 2);
}

inline platform::CpuExecutionDescriptor milan(std::uint32_t threads = 2) {
  using F = platform::CpuFeature;
  return processor("AMD", 25, 1, "zen3", {F::SSE2, F::AVX, F::AVX2, F::FMA}, threads, 1);
}

inline platform::CpuExecutionDescriptor sapphire_rapids(std::uint32_t threads = 56) {
  using F = platform::CpuFeature;
  return processor("Intel", 6, 0x8F, "sapphire_rapids",
                   {F::SSE2, F::AVX, F::AVX2, F::FMA, F::AVX512F, F::AVX512BW, F::AVX512VL, F::AMX}, threads, 8);
}

}  // namespace tunekit::tuning::testing
