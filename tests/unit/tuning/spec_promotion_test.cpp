// Promotion of measured values into a tuning spec: which changes a set of
// profiles makes, and a rewrite that touches only the value bytes and
// refuses what the rules reject.
#include "tunekit/tuning/spec_promotion.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tunekit::tuning {
namespace {

using ::testing::HasSubstr;

const std::string kSpec = R"(# demo spec
schema_version = 1
library = "demo"
library_version = "1.0.0"
tuning_abi = 2
namespace = "demo"

[[implementations]]
name = "tiles"
implementation = "blocked"
kernels = { Gemm = ["float", "double"] }
constraints = ["algorithm.tile <= algorithm.depth"]

[[implementations.parameters]]
name = "algorithm.tile"
type = "int64"
default = 0x40   # hex stays hex until promoted
minimum = 8
multiple_of = 8
description = "rows"

[[implementations.parameters]]
name = "algorithm.depth"
type = "int64"
default    = 256 # aligned
description = "depth"

[[implementations.parameters]]
name = "x.ratio"
type = "double"
default = 0.5
description = "ratio"

[[implementations]]
name = "vectors"
implementation = "simd"
kernels = { Abs = ["float"] }

[[implementations.parameters]]
name = "x.ratio"
type = "double"
default = 0.25
description = "ratio"
)";

KernelTuningKey key(std::string kernel, std::string implementation, DataType type = DataType::FLOAT) {
  return {"demo", std::move(kernel), std::move(implementation), type, platform::DeviceKind::CPU, 2};
}

KernelTuningProfile profile(std::string name, KernelTuningKey k, std::map<std::string, Value> values) {
  KernelTuningProfile p;
  p.name = std::move(name);
  p.parameters = {std::move(k), std::move(values)};
  return p;
}

class SpecPromotion : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<TuningSpec> parsed = parse_tuning_spec(kSpec, "tuning.toml");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    spec = *parsed;
  }
  TuningSpec spec;
};

TEST_F(SpecPromotion, EveryParameterOfEveryProfileByDefault) {
  const std::vector<KernelTuningProfile> profiles = {
      profile("gemm", key("Gemm", "blocked"), {{"algorithm.tile", 32}, {"x.ratio", 0.75}}),
      profile("abs", key("Abs", "simd"), {{"x.ratio", 0.125}})};
  auto changes = defaults_from_profiles(spec, profiles);
  ASSERT_TRUE(changes.ok()) << changes.error().message();
  ASSERT_EQ(changes->size(), 3u);
  EXPECT_EQ((*changes)[0].implementation, "tiles");
  EXPECT_EQ((*changes)[0].parameter, "algorithm.tile");
  EXPECT_EQ((*changes)[0].value, Value(32));
  EXPECT_EQ((*changes)[0].origin, "gemm");
  EXPECT_EQ((*changes)[1].parameter, "x.ratio");
  EXPECT_EQ((*changes)[1].value, Value(0.75));
  EXPECT_EQ((*changes)[2].implementation, "vectors");
  EXPECT_EQ((*changes)[2].value, Value(0.125));
}

TEST_F(SpecPromotion, NamedParametersOnly) {
  const std::vector<KernelTuningProfile> profiles = {
      profile("gemm", key("Gemm", "blocked"), {{"algorithm.tile", 32}, {"x.ratio", 0.75}})};
  auto changes = defaults_from_profiles(spec, profiles, {"x.ratio"});
  ASSERT_TRUE(changes.ok()) << changes.error().message();
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].parameter, "x.ratio");
  EXPECT_EQ(defaults_from_profiles(spec, profiles, {"algorithm.depth"}).error().message(),
            "parameter algorithm.depth is in none of the profiles");
}

TEST_F(SpecPromotion, ProfileOfAKeyOutsideTheSpecIsRefused) {
  for (const KernelTuningKey& other :
       {key("Gemm", "blocked", DataType::INT8), key("Gemm", "naive"),
        KernelTuningKey{"demo", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 1},
        KernelTuningKey{"tunekit_cpu", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 2}}) {
    auto changes = defaults_from_profiles(spec, std::vector{profile("p", other, {{"algorithm.tile", 32}})});
    ASSERT_FALSE(changes.ok()) << other.to_string();
    EXPECT_EQ(changes.error().message(), "profile 'p': key " + other.to_string() +
                                             " is not declared by tuning.toml (library demo, tuning ABI 2)");
  }
}

TEST_F(SpecPromotion, UnknownParameterAndDisagreeingProfilesAreRefused) {
  EXPECT_EQ(defaults_from_profiles(spec, std::vector{profile("p", key("Abs", "simd"), {{"algorithm.tile", 32}})})
                .error()
                .message(),
            "profile 'p': parameter algorithm.tile = 32 is not declared by implementation 'vectors' of tuning.toml");
  const std::vector<KernelTuningProfile> two_types = {
      profile("f", key("Gemm", "blocked"), {{"algorithm.tile", 32}}),
      profile("d", key("Gemm", "blocked", DataType::DOUBLE), {{"algorithm.tile", 16}})};
  EXPECT_THAT(defaults_from_profiles(spec, two_types).error().message(),
              HasSubstr("algorithm.tile of implementation 'tiles' is 32 in profile 'f' but 16 in profile 'd'"));
  // Agreeing profiles make one change.
  const std::vector<KernelTuningProfile> agreeing = {
      profile("f", key("Gemm", "blocked"), {{"algorithm.tile", 32}}),
      profile("d", key("Gemm", "blocked", DataType::DOUBLE), {{"algorithm.tile", 32}})};
  ASSERT_EQ(defaults_from_profiles(spec, agreeing)->size(), 1u);
}

TEST_F(SpecPromotion, RewriteReplacesOnlyTheValueBytes) {
  auto text = rewrite_spec_defaults(kSpec, spec,
                                    {{"tiles", "algorithm.tile", Value(128), "p"},
                                     {"tiles", "algorithm.depth", Value(1024), "p"},
                                     {"vectors", "x.ratio", Value(1.0), "p"}});
  ASSERT_TRUE(text.ok()) << text.error().message();
  std::string expected = kSpec;
  expected.replace(expected.find("0x40"), 4, "128");
  expected.replace(expected.find("256 # aligned"), 3, "1024");
  expected.replace(expected.find("0.25"), 4, "1.0");
  EXPECT_EQ(*text, expected);
}

TEST_F(SpecPromotion, RewriteRefusesWhatTheRulesReject) {
  auto below = rewrite_spec_defaults(kSpec, spec, {{"tiles", "algorithm.tile", Value(4), "p"}});
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().message(),
            "tuning.toml: implementation 'tiles': new default refused: parameter algorithm.tile = 4 is below the minimum 8");
  auto not_multiple = rewrite_spec_defaults(kSpec, spec, {{"tiles", "algorithm.tile", Value(36), "p"}});
  EXPECT_THAT(not_multiple.error().message(), HasSubstr("parameter algorithm.tile = 36 is not a multiple of 8"));
  auto constraint = rewrite_spec_defaults(kSpec, spec, {{"tiles", "algorithm.depth", Value(32), "p"}});
  EXPECT_THAT(constraint.error().message(),
              HasSubstr("algorithm.tile = 64 and algorithm.depth = 32 violate algorithm.tile <= algorithm.depth"));
  auto wrong_type = rewrite_spec_defaults(kSpec, spec, {{"tiles", "x.ratio", Value(1), "p"}});
  EXPECT_THAT(wrong_type.error().message(), HasSubstr("parameter x.ratio = 1 has type int64, expected double"));
  auto unknown = rewrite_spec_defaults(kSpec, spec, {{"tiles", "x.unknown", Value(1), "p"}});
  EXPECT_EQ(unknown.error().message(), "tuning.toml: implementation 'tiles' has no parameter x.unknown");
}

}  // namespace
}  // namespace tunekit::tuning
