#include "tunekit/tuning/tuning_binding.hpp"

#include <gtest/gtest.h>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using testing::gemm_binding;
using testing::gemm_key;
using testing::GemmTuning;
using testing::params;

TEST(TuningBinding, AppliesEveryTypeOfValue) {
  GemmTuning config;
  Error e = gemm_binding().try_validate_and_apply(
      config, params(gemm_key(), {{"algorithm.tile_m", 32},
                                  {"algorithm.pack_ratio", 0.25},
                                  {"algorithm.prepack", false},
                                  {"algorithm.kind", "packed"}}));
  ASSERT_TRUE(e.is_good()) << e.message();
  EXPECT_EQ(config.tile_m, 32);
  EXPECT_EQ(config.tile_n, 256);  // untouched: keeps the default
  EXPECT_DOUBLE_EQ(config.pack_ratio, 0.25);
  EXPECT_FALSE(config.prepack);
  EXPECT_EQ(config.algorithm, "packed");
}

TEST(TuningBinding, AnInvalidSetLeavesTheConfigurationUntouched) {
  GemmTuning config;
  config.tile_k = 77;
  Error e = gemm_binding().try_validate_and_apply(
      config, params(gemm_key(), {{"algorithm.tile_k", 128}, {"parallel.minimum_tasks", 0}}));
  ASSERT_TRUE(e.is_bad());
  EXPECT_EQ(config.tile_k, 77);  // nothing applied, not even the valid value
}

TEST(TuningBinding, ValidateAndApplyThrowsNamingKeyParameterAndValue) {
  GemmTuning config;
  try {
    gemm_binding().ValidateAndApply(config, params(gemm_key(), {{"parallel.minimum_tasks", 0}}));
    FAIL() << "no exception";
  } catch (const TuningError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tunekit_test/Gemm/blocked_avx2/float/cpu/abi3"), std::string::npos) << what;
    EXPECT_NE(what.find("parallel.minimum_tasks = 0"), std::string::npos) << what;
  }
}

TEST(TuningBinding, SchemaDefaultsEqualTheMemberInitializers) {
  KernelTuningSchema s = gemm_binding().schema(gemm_key());
  const GemmTuning defaults;
  EXPECT_EQ(s.find("algorithm.tile_m")->portable_default, Value(defaults.tile_m));
  EXPECT_EQ(s.find("algorithm.prepack")->portable_default, Value(defaults.prepack));
  EXPECT_EQ(s.find("algorithm.kind")->type, ValueType::STRING);
  // Applying the defaults reproduces the default struct.
  GemmTuning applied;
  applied.tile_k = 1;
  ASSERT_TRUE(gemm_binding().try_validate_and_apply(applied, s.defaults()).is_good());
  EXPECT_EQ(applied.tile_k, defaults.tile_k);
}

}  // namespace
}  // namespace tunekit::tuning
