// The header tunekit_add_profiles generates from tests/data/profiles/demo
// (validated against tests/data/spec/small_tuning.toml), compiled: it equals
// the golden file, and after the schemas it registers every profile, which
// then resolve on imaginary processors that their selectors name.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "small_profiles.hpp"
#include "small_tuning.hpp"

namespace {

using tunekit::Value;
using tunekit::platform::CpuExecutionDescriptor;
using tunekit::platform::CpuFeature;
using tunekit::tuning::KernelTuningRegistry;
using tunekit::tuning::ResolutionSource;

std::string read(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CpuExecutionDescriptor milan(std::uint32_t threads) {
  CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = "AMD";
  e.processor.family = 25;
  e.processor.model = 1;
  e.processor.stepping = 1;
  e.processor.microarchitecture = "zen3";
  e.processor.features = {CpuFeature::SSE4_1, CpuFeature::AVX2};
  e.effective_threads = threads;
  return e;
}

CpuExecutionDescriptor sapphire_rapids(bool amx) {
  CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = "Intel";
  e.processor.family = 6;
  e.processor.model = 143;
  e.processor.stepping = 8;
  e.processor.features = {CpuFeature::SSE4_1, CpuFeature::AVX2, CpuFeature::AVX512F, CpuFeature::AVX512BW};
  if (amx) e.processor.features.insert(CpuFeature::AMX);
  e.effective_threads = 8;
  return e;
}

TEST(ProcessorProfilesHeader, BuildHeaderEqualsTheGoldenFile) {
  const std::string golden = read(TUNEKIT_DEMO_PROFILES_GOLDEN_PATH);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(read(TUNEKIT_DEMO_PROFILES_HEADER_PATH), golden);
}

TEST(ProcessorProfilesHeader, CountsEveryProfileOfTheFolder) {
  static_assert(demo::tuning::kProcessorProfilesCount == 3);
}

TEST(ProcessorProfilesHeader, RegisteredProfilesResolveOnTheProcessorsTheirSelectorsName) {
  KernelTuningRegistry registry;
  demo::tuning::register_demo_kernels_schemas(registry);
  const tunekit::Error e = demo::tuning::register_processor_profiles(registry);
  ASSERT_TRUE(e.is_good()) << e.message();
  const auto generation = registry.snapshot();

  const auto exact = generation->resolve(demo::tuning::gemm_blocked_float_key(), milan(8));
  EXPECT_EQ(exact.source, ResolutionSource::EXACT_PROCESSOR);
  EXPECT_EQ(exact.profile_name, "milan-gemm-float");
  EXPECT_EQ(exact.parameters.values.at("algorithm.tile_m"), Value(128));
  EXPECT_EQ(exact.parameters.values.at("algorithm.schedule"), Value("dynamic"));
  EXPECT_EQ(exact.parameters.values.at("algorithm.packing"), Value(false));
  EXPECT_EQ(exact.parameters.values.at("parallel.split_ratio"), Value(0.1));  // bit for bit
  EXPECT_EQ(exact.parameters.values.at("algorithm.tile_k"), Value(256));      // the default

  const auto group = generation->resolve(demo::tuning::gemm_blocked_double_key(), milan(2));
  EXPECT_EQ(group.source, ResolutionSource::PROCESSOR_GROUP);
  EXPECT_EQ(group.parameters.values.at("parallel.split_ratio"), Value(0.30000000000000004));

  const auto isa = generation->resolve(demo::tuning::gemm_blocked_float_key(), sapphire_rapids(false));
  EXPECT_EQ(isa.source, ResolutionSource::INSTRUCTION_SET);
  EXPECT_EQ(isa.parameters.values.at("algorithm.tile_k"), Value(512));
  EXPECT_EQ(isa.parameters.values.at("parallel.split_ratio"), Value(1e-7));
}

TEST(ProcessorProfilesHeader, ProcessorsOutsideEverySelectorGetThePortableDefaults) {
  KernelTuningRegistry registry;
  demo::tuning::register_demo_kernels_schemas(registry);
  ASSERT_TRUE(demo::tuning::register_processor_profiles(registry).is_good());
  const auto generation = registry.snapshot();
  // Two threads are below the Milan profile's minimum of 4; AMX is excluded by the AVX-512 one.
  for (const CpuExecutionDescriptor& e : {milan(2), sapphire_rapids(true)}) {
    const auto r = generation->resolve(demo::tuning::gemm_blocked_float_key(), e);
    EXPECT_EQ(r.source, ResolutionSource::PORTABLE_DEFAULT) << r.profile_name;
    EXPECT_EQ(r.parameters.values.at("algorithm.tile_m"), Value(64));
    EXPECT_EQ(r.parameters.values.at("parallel.split_ratio"), Value(0.75));
    EXPECT_EQ(r.parameters.values.at("algorithm.schedule"), Value("static"));
  }
}

TEST(ProcessorProfilesHeader, WithoutTheSchemasNothingIsRegistered) {
  KernelTuningRegistry registry;
  const tunekit::Error e = demo::tuning::register_processor_profiles(registry);
  EXPECT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("no schema is registered for key demo_kernels/Gemm/blocked/"), std::string::npos)
      << e.message();
  EXPECT_EQ(registry.generation_number(), 0u);
}

}  // namespace
