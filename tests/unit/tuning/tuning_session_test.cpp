#include "tunekit/tuning/tuning_session.hpp"

#include <gtest/gtest.h>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using platform::CpuFeature;
using testing::gemm_binding;
using testing::gemm_key;
using testing::GemmTuning;
using testing::milan;
using testing::params;

CpuSelector exact_milan() {
  CpuSelector s;
  s.vendor = "AMD";
  s.family = 25;
  s.models = {1};
  return s;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.register_schema(gemm_binding().schema(gemm_key()));
    registry.register_profile({"milan", exact_milan(), params(gemm_key(), {{"algorithm.tile_k", 64}}), 0});
    CpuSelector avx2;
    avx2.required_features = {CpuFeature::AVX2};
    registry.register_profile({"avx2", avx2, params(gemm_key(), {{"algorithm.tile_k", 16}}), 0});
    ASSERT_TRUE(registry.try_publish_calibrated(
                            {{"cal", params(gemm_key(), {{"algorithm.tile_k", 128}}), milan(), "digest-9", "1.0"}})
                    .is_good());
  }
  TuningSessionOptions options() {
    TuningSessionOptions o;
    o.registry = &registry;
    o.execution = milan();
    return o;
  }
  KernelTuningRegistry registry;
};

TEST_F(SessionTest, ConfiguresATypedConfigurationFromTheWinningProfile) {
  TuningSession session = TuningSession::Create(options());
  GemmTuning config = session.configure(gemm_binding(), gemm_key());
  EXPECT_EQ(config.tile_k, 128);  // calibrated for exactly this execution
  EXPECT_EQ(config.tile_m, 64);   // untouched default
  EXPECT_EQ(session.resolve(gemm_key()).source, ResolutionSource::CALIBRATED);
}

TEST_F(SessionTest, PortableDefaultsOnly) {
  TuningSessionOptions o = options();
  o.portable_defaults_only = true;
  TuningSession session = TuningSession::Create(o);
  EXPECT_EQ(session.configure(gemm_binding(), gemm_key()).tile_k, 256);
  EXPECT_EQ(session.resolve(gemm_key()).source, ResolutionSource::PORTABLE_DEFAULT);
}

TEST_F(SessionTest, OneNamedProfile) {
  TuningSessionOptions o = options();
  o.profile_name = "avx2";
  TuningSession session = TuningSession::Create(o);
  Resolution r = session.resolve(gemm_key());
  EXPECT_EQ(r.profile_name, "avx2");
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(16));
}

TEST_F(SessionTest, OneCalibratedDigest) {
  TuningSessionOptions o = options();
  o.calibrated_digest = "digest-9";
  EXPECT_EQ(TuningSession::Create(o).resolve(gemm_key()).profile_name, "cal");
  o.execution = milan(1);  // the digest was measured for another execution
  EXPECT_EQ(TuningSession::Create(o).resolve(gemm_key()).source, ResolutionSource::PORTABLE_DEFAULT);
}

TEST_F(SessionTest, ExplicitOverridesWinAndRecordTheBaseSource) {
  TuningSessionOptions o = options();
  o.overrides.push_back(params(gemm_key(), {{"algorithm.tile_m", 32}}));
  TuningSession session = TuningSession::Create(o);
  Resolution r = session.resolve(gemm_key());
  EXPECT_EQ(r.source, ResolutionSource::SESSION_OVERRIDE);
  EXPECT_EQ(r.base_source, ResolutionSource::CALIBRATED);
  GemmTuning config = session.configure(gemm_binding(), gemm_key());
  EXPECT_EQ(config.tile_m, 32);
  EXPECT_EQ(config.tile_k, 128);
}

TEST_F(SessionTest, BadOptionsAreRejectedAtCreation) {
  TuningSessionOptions unknown_name = options();
  unknown_name.profile_name = "nope";
  EXPECT_NE(TuningSession::create(unknown_name).error().message().find("no registered profile is named nope"),
            std::string::npos);
  TuningSessionOptions unknown_digest = options();
  unknown_digest.calibrated_digest = "zzz";
  EXPECT_TRUE(TuningSession::create(unknown_digest).error().is_bad());
  TuningSessionOptions both = options();
  both.portable_defaults_only = true;
  both.profile_name = "avx2";
  EXPECT_NE(TuningSession::create(both).error().message().find("exclusive"), std::string::npos);
  TuningSessionOptions invalid_override = options();
  invalid_override.overrides.push_back(params(gemm_key(), {{"algorithm.tile_m", 1000}}));
  Result<TuningSession> r = TuningSession::create(invalid_override);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("session override 0: key tunekit_test/Gemm"), std::string::npos);
  EXPECT_THROW(TuningSession::Create(invalid_override), TuningError);
  TuningSessionOptions no_schema = options();
  KernelTuningKey conv = gemm_key();
  conv.kernel = "Conv";
  no_schema.overrides.push_back(params(conv, {{"x", 1}}));
  EXPECT_NE(TuningSession::create(no_schema).error().message().find("no schema is registered"), std::string::npos);
}

TEST_F(SessionTest, AnOverrideInconsistentWithTheResolvedProfileIsRejectedAtCreation) {
  const KernelTuningKey key = gemm_key(DataType::DOUBLE);
  registry.register_schema(gemm_binding().schema(key));
  registry.register_profile({"narrow-n", exact_milan(), params(key, {{"algorithm.tile_n", 64}}), 0});
  TuningSessionOptions o = options();
  // Alone, tile_m = 128 is fine against the defaults (tile_n = 256).
  o.overrides.push_back(params(key, {{"algorithm.tile_m", 128}}));
  Result<TuningSession> r = TuningSession::create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(r.error().message(),
            "session override 0 on top of narrow-n: key " + key.to_string() +
                ": inconsistent parameters: algorithm.tile_m = 128 and algorithm.tile_n = 64 violate "
                "algorithm.tile_m <= algorithm.tile_n");
  EXPECT_THROW(TuningSession::Create(o), TuningError);
  // On another processor the profile does not apply and the same override is valid.
  o.execution = testing::sapphire_rapids();
  Result<TuningSession> elsewhere = TuningSession::create(o);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.error().message();
  EXPECT_EQ(elsewhere->configure(gemm_binding(), key).tile_m, 128);
  // An override that repairs the combination is accepted.
  o.execution = milan();
  o.overrides[0].values["algorithm.tile_n"] = std::int64_t{256};
  ASSERT_TRUE(TuningSession::create(o).ok());
}

TEST_F(SessionTest, ASessionKeepsItsGenerationAndANewSessionSeesTheNewOne) {
  TuningSession old_session = TuningSession::Create(options());
  TuningSessionOptions o = options();
  o.execution = milan(1);
  TuningSession old_one_thread = TuningSession::Create(o);
  ASSERT_TRUE(registry.try_publish_calibrated(
                          {{"cal-1", params(gemm_key(), {{"algorithm.tile_k", 32}}), milan(1), "digest-10", "1.0"}})
                  .is_good());
  EXPECT_EQ(old_one_thread.resolve(gemm_key()).profile_name, "milan");
  TuningSession new_one_thread = TuningSession::Create(o);
  EXPECT_EQ(new_one_thread.resolve(gemm_key()).profile_name, "cal-1");
  EXPECT_EQ(new_one_thread.generation(), old_one_thread.generation() + 1);
  EXPECT_EQ(old_session.generation(), old_one_thread.generation());
}

TEST_F(SessionTest, KeysWithoutSchemaKeepTheCompiledDefaults) {
  KernelTuningKey conv = gemm_key();
  conv.kernel = "Conv";
  GemmTuning config = TuningSession::Create(options()).configure(gemm_binding(), conv);
  EXPECT_EQ(config.tile_k, 256);
}

TEST_F(SessionTest, StatisticsCountResolutions) {
  TuningSession session = TuningSession::Create(options());
  (void)session.resolve(gemm_key());
  (void)session.explain(gemm_key());
  ResolutionStatistics s = session.statistics();
  EXPECT_EQ(s.resolutions, 2u);
  EXPECT_GT(s.resolution_time.count(), 0);
}

TEST_F(SessionTest, ExplainReportsTheCompleteSetAndRejections) {
  Resolution r = TuningSession::Create(options()).explain(gemm_key());
  EXPECT_EQ(r.profile_name, "cal");
  EXPECT_EQ(r.parameters.values.size(), 7u);
  ASSERT_EQ(r.rejected.size(), 2u);
  EXPECT_EQ(r.rejected[0].reason, "outranked by cal");
}

}  // namespace
}  // namespace tunekit::tuning
