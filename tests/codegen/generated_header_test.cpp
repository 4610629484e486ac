// The header tunekit_add_tuning_spec generates from tests/data/spec/small_tuning.toml,
// compiled: the structs hold the spec's defaults, the bindings validate with
// the spec's rules (the same schema the runtime reads from the spec), and the
// key helpers and registration cover every declared key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "small_tuning.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace {

using tunekit::DataType;
using tunekit::Value;
using tunekit::tuning::KernelTuningKey;
using tunekit::tuning::KernelTuningParameters;
using tunekit::tuning::KernelTuningRegistry;

std::string read(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The build generated the header with tunekit_gen; the golden file was
// checked against `tunekit gen-defaults` (tests/cli): the two agree.
TEST(GeneratedHeader, BuildHeaderEqualsTheGoldenFile) {
  const std::string golden = read(TUNEKIT_SMALL_GOLDEN_PATH);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(read(TUNEKIT_SMALL_HEADER_PATH), golden);
}

TEST(GeneratedHeader, StructMembersHoldTheSpecDefaults) {
  const demo::tuning::BlockedGemmTuning gemm;
  EXPECT_EQ(gemm.tile_m, 64);
  EXPECT_EQ(gemm.algorithm_tile_k, 256);
  EXPECT_EQ(gemm.algorithm_vector, 8);
  EXPECT_EQ(gemm.parallel_split_ratio, 0.75);
  EXPECT_TRUE(gemm.algorithm_packing);
  EXPECT_EQ(gemm.algorithm_schedule, "static");
  EXPECT_EQ(demo::tuning::SoftmaxTuning{}.launch_block_size, 256);
  EXPECT_STREQ(demo::tuning::kTuningLibrary, "demo_kernels");
  EXPECT_STREQ(demo::tuning::kTuningLibraryVersion, "2.1.0");
  EXPECT_EQ(demo::tuning::kTuningAbi, 3u);
}

// algorithm.schedule is required: every parameter set names it.
KernelTuningParameters gemm_parameters(std::map<std::string, Value> values) {
  values.emplace("algorithm.schedule", "static");
  return {demo::tuning::gemm_blocked_float_key(), std::move(values)};
}

TEST(GeneratedHeader, BindingAppliesValidValuesAndRejectsBadOnes) {
  demo::tuning::BlockedGemmTuning config;
  auto e = demo::tuning::blocked_gemm_binding().try_validate_and_apply(
      config, gemm_parameters({{"algorithm.tile_m", 128}, {"algorithm.schedule", "guided"}}));
  ASSERT_TRUE(e.is_good()) << e.message();
  EXPECT_EQ(config.tile_m, 128);
  EXPECT_EQ(config.algorithm_schedule, "guided");

  for (const auto& [name, value, reason] : std::vector<std::tuple<std::string, Value, std::string>>{
           {"algorithm.tile_m", 12, "parameter algorithm.tile_m = 12 is not a multiple of 8"},
           {"algorithm.tile_m", 1024, "parameter algorithm.tile_m = 1024 is above the maximum 512"},
           {"parallel.split_ratio", 1.5, "parameter parallel.split_ratio = 1.5 is above the maximum 1"},
           {"algorithm.schedule", "auto", "parameter algorithm.schedule = \"auto\" is not one of [static, dynamic, guided]"},
           {"algorithm.vector", 3, "algorithm.vector = 3 and algorithm.tile_m = 64 violate algorithm.vector divides algorithm.tile_m"},
           {"algorithm.tile_m", 512, "algorithm.tile_m = 512 and algorithm.tile_k = 256 violate algorithm.tile_m <= algorithm.tile_k"}}) {
    demo::tuning::BlockedGemmTuning untouched;
    auto bad = demo::tuning::blocked_gemm_binding().try_validate_and_apply(untouched, gemm_parameters({{name, value}}));
    EXPECT_THAT(bad.message(), ::testing::HasSubstr(reason)) << name << " = " << value.to_text();
    EXPECT_EQ(untouched.tile_m, 64);
    EXPECT_EQ(untouched.algorithm_vector, 8);
  }
  // Without the required parameter a set is rejected too.
  auto missing = demo::tuning::blocked_gemm_binding().try_validate_and_apply(
      config, KernelTuningParameters{demo::tuning::gemm_blocked_float_key(), {{"algorithm.tile_m", 32}}});
  EXPECT_THAT(missing.message(), ::testing::HasSubstr("required parameter algorithm.schedule is missing"));
}

TEST(GeneratedHeader, BindingSchemaEqualsTheSchemaReadFromTheSpec) {
  auto spec = tunekit::tuning::ReadTuningSpec(TUNEKIT_SMALL_SPEC_PATH);
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  for (DataType type : demo::tuning::kGemmBlockedElementTypes) {
    const KernelTuningKey key = demo::tuning::gemm_blocked_key(type);
    EXPECT_EQ(demo::tuning::blocked_gemm_binding().schema(key), *spec->schema(key)) << key.to_string();
  }
  const KernelTuningKey softmax = demo::tuning::softmax_wave_hip_float16_key();
  EXPECT_EQ(demo::tuning::softmax_binding().schema(softmax), *spec->schema(softmax));
  EXPECT_EQ(demo::tuning::demo_kernels_tuning_keys(), spec->keys());
}

TEST(GeneratedHeader, KeyHelpersNameEveryDeclaredKey) {
  EXPECT_EQ(demo::tuning::batched_gemm_blocked_float_key(),
            (KernelTuningKey{"demo_kernels", "BatchedGemm", "blocked", DataType::FLOAT,
                             tunekit::platform::DeviceKind::CPU, 3}));
  EXPECT_EQ(demo::tuning::softmax_wave_hip_bfloat16_key().device, tunekit::platform::DeviceKind::HIP);
  static_assert(demo::tuning::gemm_blocked_supports(DataType::DOUBLE));
  static_assert(!demo::tuning::batched_gemm_blocked_supports(DataType::DOUBLE));
  static_assert(demo::tuning::kSoftmaxWaveHipElementTypes.size() == 2);
  EXPECT_EQ(demo::tuning::demo_kernels_tuning_keys().size(), 5u);
}

TEST(GeneratedHeader, RegistersTheSchemaOfEveryKey) {
  KernelTuningRegistry registry;
  demo::tuning::register_demo_kernels_schemas(registry);
  const auto generation = registry.snapshot();
  EXPECT_EQ(generation->keys(), demo::tuning::demo_kernels_tuning_keys());
  ASSERT_NE(generation->schema(demo::tuning::gemm_blocked_double_key()), nullptr);
  EXPECT_EQ(*generation->schema(demo::tuning::gemm_blocked_double_key()),
            demo::tuning::blocked_gemm_binding().schema(demo::tuning::gemm_blocked_double_key()));
}

}  // namespace
