#include "tunekit/tuning/kernel_tuning_schema.hpp"

#include <gtest/gtest.h>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using testing::gemm_binding;
using testing::gemm_key;
using testing::params;

KernelTuningSchema schema() { return gemm_binding().schema(gemm_key()); }

void expect_rejected(const KernelTuningParameters& p, const std::string& fragment) {
  Error e = schema().validate(p);
  ASSERT_TRUE(e.is_bad()) << "accepted: " << p.to_string();
  EXPECT_EQ(e.code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("tunekit_test/Gemm/blocked_avx2/float/cpu/abi3"), std::string::npos) << e.message();
}

TEST(KernelTuningSchema, DefaultsComeFromTheStructAndAreValid) {
  KernelTuningSchema s = schema();
  EXPECT_TRUE(s.validate_schema().is_good()) << s.validate_schema().message();
  KernelTuningParameters d = s.defaults();
  EXPECT_EQ(d.values.size(), 7u);
  EXPECT_EQ(d.values.at("algorithm.tile_m"), Value(64));
  EXPECT_EQ(d.values.at("algorithm.pack_ratio"), Value(0.5));
  EXPECT_EQ(d.values.at("algorithm.kind"), Value("blocked"));
  EXPECT_TRUE(s.validate(d).is_good());
  EXPECT_TRUE(s.validate(params(gemm_key(), {})).is_good());  // empty profile: all defaults
}

TEST(KernelTuningSchema, RejectsUnknownNames) {
  expect_rejected(params(gemm_key(), {{"algorithm.tile_q", 8}}), "unknown parameter algorithm.tile_q = 8");
}

TEST(KernelTuningSchema, RejectsWrongTypesWithoutConverting) {
  expect_rejected(params(gemm_key(), {{"algorithm.tile_m", 64.0}}),
                  "parameter algorithm.tile_m = 64.0 has type double, expected int64");
  expect_rejected(params(gemm_key(), {{"algorithm.prepack", 1}}), "has type int64, expected bool");
  expect_rejected(params(gemm_key(), {{"algorithm.pack_ratio", 1}}), "expected double");
}

TEST(KernelTuningSchema, RejectsNonPositiveGrainsAndOutOfRangeValues) {
  expect_rejected(params(gemm_key(), {{"parallel.minimum_tasks", 0}}),
                  "parameter parallel.minimum_tasks = 0 is below the minimum 1");
  expect_rejected(params(gemm_key(), {{"parallel.minimum_tasks", -4}}), "= -4 is below the minimum");
  expect_rejected(params(gemm_key(), {{"algorithm.pack_ratio", 1.5}}), "= 1.5 is above the maximum 1");
}

TEST(KernelTuningSchema, RejectsValuesThatAreNotAMultiple) {
  expect_rejected(params(gemm_key(), {{"algorithm.tile_m", 12}, {"algorithm.tile_n", 24}}),
                  "parameter algorithm.tile_m = 12 is not a multiple of 8");
}

TEST(KernelTuningSchema, RejectsStringsOutsideTheAllowedSet) {
  expect_rejected(params(gemm_key(), {{"algorithm.kind", "strassen"}}),
                  "parameter algorithm.kind = \"strassen\" is not one of [blocked, packed, naive]");
}

TEST(KernelTuningSchema, RejectsInconsistentTilesAgainstMergedValues) {
  // tile_m 512 against the default tile_n 256.
  expect_rejected(params(gemm_key(), {{"algorithm.tile_m", 512}}),
                  "inconsistent parameters: algorithm.tile_m = 512 and algorithm.tile_n = 256 violate "
                  "algorithm.tile_m <= algorithm.tile_n");
  expect_rejected(params(gemm_key(), {{"algorithm.tile_m", 48}, {"algorithm.tile_n", 64}}),
                  "violate algorithm.tile_m divides algorithm.tile_n");
  EXPECT_TRUE(schema().validate(params(gemm_key(), {{"algorithm.tile_m", 32}, {"algorithm.tile_n", 64}})).is_good());
}

TEST(KernelTuningSchema, RejectsParametersOfAnotherKey) {
  Error e = schema().validate(params(gemm_key(DataType::DOUBLE), {}));
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("another key, tunekit_test/Gemm/blocked_avx2/double"), std::string::npos);
}

TEST(KernelTuningSchema, RequiredParametersMustBePresent) {
  ParameterSpec grain{"parallel.grain", ValueType::INT64, Value(1024), 1.0, std::nullopt, std::nullopt, {}, true, ""};
  KernelTuningSchema s(gemm_key(), {grain});
  Error e = s.validate(params(gemm_key(), {}));
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("required parameter parallel.grain is missing"), std::string::npos);
  EXPECT_TRUE(s.validate(params(gemm_key(), {{"parallel.grain", 64}})).is_good());
}

TEST(KernelTuningSchema, ValidateSchemaCatchesBadDeclarations) {
  ParameterSpec a{"x", ValueType::INT64, Value(0), 1.0, std::nullopt, std::nullopt, {}, false, ""};
  EXPECT_NE(KernelTuningSchema(gemm_key(), {a}).validate_schema().message().find("portable default rejected"),
            std::string::npos);
  ParameterSpec b{"x", ValueType::INT64, Value(4), std::nullopt, std::nullopt, std::nullopt, {}, false, ""};
  EXPECT_NE(KernelTuningSchema(gemm_key(), {b, b}).validate_schema().message().find("declared twice"),
            std::string::npos);
  ParameterSpec c{"flag", ValueType::BOOL, Value(true), 0.0, std::nullopt, std::nullopt, {}, false, ""};
  EXPECT_TRUE(KernelTuningSchema(gemm_key(), {c}).validate_schema().is_bad());
  KernelTuningSchema bad_constraint(gemm_key(), {b}, {{"x", ConstraintKind::LESS, "y"}});
  EXPECT_NE(bad_constraint.validate_schema().message().find("unknown parameter"), std::string::npos);
}

TEST(KernelTuningSchema, MergeOverwritesOnlyGivenValues) {
  KernelTuningParameters merged = schema().merge(params(gemm_key(), {{"algorithm.tile_k", 128}}));
  EXPECT_EQ(merged.values.at("algorithm.tile_k"), Value(128));
  EXPECT_EQ(merged.values.at("algorithm.tile_m"), Value(64));
  EXPECT_EQ(merged.values.size(), 7u);
}

TEST(KernelTuningKey, ElementTypesAreDistinctKeys) {
  EXPECT_NE(gemm_key(DataType::FLOAT), gemm_key(DataType::FLOAT16));
  EXPECT_NE(KernelTuningKeyHash{}(gemm_key(DataType::FLOAT)), KernelTuningKeyHash{}(gemm_key(DataType::BFLOAT16)));
  EXPECT_EQ(gemm_key().to_string(), "tunekit_test/Gemm/blocked_avx2/float/cpu/abi3");
}

}  // namespace
}  // namespace tunekit::tuning
