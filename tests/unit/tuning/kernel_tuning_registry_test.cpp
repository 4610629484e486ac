#include "tunekit/tuning/kernel_tuning_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using platform::CpuFeature;
using testing::alder_lake;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::params;
using testing::sapphire_rapids;

CpuSelector exact(std::string vendor, std::uint32_t family, std::uint32_t model) {
  CpuSelector s;
  s.vendor = std::move(vendor);
  s.family = family;
  s.models = {model};
  return s;
}

CpuSelector isa(platform::CpuFeatureSet features) {
  CpuSelector s;
  s.required_features = features;
  return s;
}

KernelTuningProfile profile(std::string name, CpuSelector selector, std::int64_t tile_k, int priority = 0,
                            DataType type = DataType::FLOAT) {
  return {std::move(name), std::move(selector), params(gemm_key(type), {{"algorithm.tile_k", tile_k}}), priority};
}

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16}) {
      ASSERT_TRUE(registry.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
    }
  }
  Resolution resolve(const platform::CpuExecutionDescriptor& e, DataType t = DataType::FLOAT,
                     const ResolutionFilter& f = {}, bool explain = false) {
    return registry.snapshot()->resolve(gemm_key(t), e, f, explain);
  }
  KernelTuningRegistry registry;
};

TEST_F(RegistryTest, PrecedenceFollowsTheSixSteps) {
  CpuSelector zen3;
  zen3.microarchitecture = "zen3";
  ASSERT_TRUE(registry.try_register_profiles({profile("isa-avx2", isa({CpuFeature::AVX2}), 16),
                                              profile("uarch-zen3", zen3, 32),
                                              profile("exact-milan", exact("AMD", 25, 1), 64)})
                  .is_good());
  CalibratedKernelProfile calibrated{"calibrated-milan", params(gemm_key(), {{"algorithm.tile_k", 128}}), milan(),
                                     "digest-1", "1.0"};
  ASSERT_TRUE(registry.try_publish_calibrated({calibrated}).is_good());

  // Step 2: calibrated for exactly this execution.
  Resolution r = resolve(milan());
  EXPECT_EQ(r.source, ResolutionSource::CALIBRATED);
  EXPECT_EQ(r.profile_name, "calibrated-milan");
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(128));
  EXPECT_EQ(r.parameters.values.size(), 7u);  // complete set
  // Another thread count is another execution: the calibration does not apply.
  r = resolve(milan(1));
  EXPECT_EQ(r.source, ResolutionSource::EXACT_PROCESSOR);
  EXPECT_EQ(r.profile_name, "exact-milan");
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(64));
  // A zen3 of another model: the microarchitecture profile.
  auto other_zen3 = testing::processor("AMD", 25, 0x21, "zen3", {CpuFeature::AVX2});
  r = resolve(other_zen3);
  EXPECT_EQ(r.source, ResolutionSource::PROCESSOR_GROUP);
  EXPECT_EQ(r.profile_name, "uarch-zen3");
  // Only the instruction set matches.
  r = resolve(alder_lake());
  EXPECT_EQ(r.source, ResolutionSource::INSTRUCTION_SET);
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(16));
  // Nothing matches: portable defaults.
  auto old = testing::processor("Intel", 6, 0x2A, "sandy_bridge", {CpuFeature::SSE2, CpuFeature::AVX});
  r = resolve(old);
  EXPECT_EQ(r.source, ResolutionSource::PORTABLE_DEFAULT);
  EXPECT_TRUE(r.profile_name.empty());
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(256));
}

TEST_F(RegistryTest, ElementTypesResolveIndependently) {
  ASSERT_TRUE(registry.try_register_profiles({profile("milan-f32", exact("AMD", 25, 1), 64)}).is_good());
  EXPECT_EQ(resolve(milan(), DataType::FLOAT).profile_name, "milan-f32");
  EXPECT_EQ(resolve(milan(), DataType::FLOAT16).source, ResolutionSource::PORTABLE_DEFAULT);
  EXPECT_EQ(resolve(milan(), DataType::DOUBLE).source, ResolutionSource::PORTABLE_DEFAULT);
}

TEST_F(RegistryTest, PriorityOrdersOnlyEqualSpecificity) {
  CpuSelector avx2_small = isa({CpuFeature::AVX2});
  avx2_small.maximum_threads = 4;
  CpuSelector avx2 = isa({CpuFeature::AVX2});
  ASSERT_TRUE(registry.try_register_profiles({profile("avx2-low", avx2, 16, 1), profile("avx2-high", avx2_small, 32, 5),
                                              profile("exact", exact("AMD", 25, 1), 64, -100)})
                  .is_good());
  EXPECT_EQ(resolve(milan(2)).profile_name, "exact");  // specificity beats any priority
  EXPECT_EQ(resolve(alder_lake(2)).profile_name, "avx2-high");
  EXPECT_EQ(resolve(alder_lake(8)).profile_name, "avx2-low");  // thread bound excludes the higher priority
}

TEST_F(RegistryTest, AmbiguousProfilesAreRejectedNamingBoth) {
  ASSERT_TRUE(registry.try_register_profiles({profile("first", isa({CpuFeature::AVX2}), 16)}).is_good());
  const std::uint64_t before = registry.generation_number();
  Error e = registry.try_register_profiles({profile("second", isa({CpuFeature::FMA}), 32)});
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("profile second is ambiguous with profile first"), std::string::npos) << e.message();
  EXPECT_EQ(registry.generation_number(), before);
  // Disjoint selectors of equal rank, or another priority, are fine.
  CpuSelector no_avx2;
  no_avx2.required_features = {CpuFeature::SSE2};
  no_avx2.excluded_features = {CpuFeature::AVX2};
  EXPECT_TRUE(registry.try_register_profiles({profile("third", no_avx2, 32)}).is_good());
  EXPECT_TRUE(registry.try_register_profiles({profile("fourth", isa({CpuFeature::FMA}), 32, 1)}).is_good());
}

TEST_F(RegistryTest, RegistrationIsAllOrNothing) {
  const std::uint64_t before = registry.generation_number();
  Error e = registry.try_register_profiles(
      {profile("good", exact("AMD", 25, 1), 64), profile("bad", exact("AMD", 25, 2), 0)});
  ASSERT_TRUE(e.is_bad());
  EXPECT_NE(e.message().find("profile bad:"), std::string::npos);
  EXPECT_NE(e.message().find("algorithm.tile_k = 0 is below the minimum 1"), std::string::npos) << e.message();
  EXPECT_EQ(registry.generation_number(), before);
  EXPECT_EQ(resolve(milan()).source, ResolutionSource::PORTABLE_DEFAULT);
  EXPECT_FALSE(registry.snapshot()->has_profile_named("good"));
}

TEST_F(RegistryTest, RejectsProfilesWithoutSchemaDuplicateNamesAndBadSelectors) {
  KernelTuningProfile no_schema = profile("x", exact("AMD", 25, 1), 64);
  no_schema.parameters.key.kernel = "Conv";
  EXPECT_NE(registry.try_register_profiles({no_schema}).message().find("no schema is registered for key"),
            std::string::npos);
  ASSERT_TRUE(registry.try_register_profiles({profile("dup", exact("AMD", 25, 1), 64)}).is_good());
  EXPECT_NE(registry.try_register_profiles({profile("dup", exact("AMD", 25, 2), 64)}).message().find("already registered"),
            std::string::npos);
  CpuSelector bad;
  bad.stepping = 3;
  EXPECT_NE(registry.try_register_profiles({profile("bad-selector", bad, 64)}).message().find("stepping"),
            std::string::npos);
  EXPECT_THROW(registry.register_profile(profile("dup", exact("AMD", 25, 3), 64)), TuningError);
}

TEST_F(RegistryTest, GeneratedNamesAreUniqueAndReadable) {
  ASSERT_TRUE(registry.try_register_profiles({profile("", exact("AMD", 25, 1), 64)}).is_good());
  Resolution r = resolve(milan(1));
  EXPECT_EQ(r.profile_name, "tunekit_test/Gemm/blocked_avx2/float/cpu/abi3@vendor=AMD family=25 models=[1]#p0");
}

TEST_F(RegistryTest, SchemaChangesAreRejectedOnceProfilesUseIt) {
  ASSERT_TRUE(registry.try_register_profiles({profile("p", exact("AMD", 25, 1), 64)}).is_good());
  EXPECT_TRUE(registry.try_register_schema(gemm_binding().schema(gemm_key())).is_good());  // identical: fine
  KernelTuningSchema other(gemm_key(), {});
  EXPECT_TRUE(registry.try_register_schema(other).is_bad());
}

TEST_F(RegistryTest, GenerationsAreImmutableSnapshots) {
  auto before = registry.snapshot();
  ASSERT_TRUE(registry.try_register_profiles({profile("p", exact("AMD", 25, 1), 64)}).is_good());
  auto after = registry.snapshot();
  EXPECT_EQ(after->number(), before->number() + 1);
  EXPECT_EQ(before->resolve(gemm_key(), milan()).source, ResolutionSource::PORTABLE_DEFAULT);
  EXPECT_EQ(after->resolve(gemm_key(), milan()).profile_name, "p");
  EXPECT_EQ(after->resolve(gemm_key(), milan()).generation, after->number());
}

TEST_F(RegistryTest, CalibratedProfilesReplaceTheSameExecutionAndValidate) {
  CalibratedKernelProfile first{"", params(gemm_key(), {{"algorithm.tile_k", 128}}), milan(), "d1", "1.0"};
  CalibratedKernelProfile second{"", params(gemm_key(), {{"algorithm.tile_k", 96}}), milan(), "d2", "1.0"};
  ASSERT_TRUE(registry.try_publish_calibrated({first}).is_good());
  ASSERT_TRUE(registry.try_publish_calibrated({second}).is_good());
  EXPECT_EQ(registry.snapshot()->calibrated_profiles(gemm_key()).size(), 1u);
  EXPECT_EQ(resolve(milan()).parameters.values.at("algorithm.tile_k"), Value(96));
  CalibratedKernelProfile invalid{"", params(gemm_key(), {{"algorithm.tile_m", 7}}), alder_lake(), "d3", "1.0"};
  const auto generation = registry.generation_number();
  EXPECT_TRUE(registry.try_publish_calibrated({invalid}).is_bad());
  EXPECT_EQ(registry.generation_number(), generation);
}

TEST_F(RegistryTest, FiltersRestrictTheSources) {
  ASSERT_TRUE(registry.try_register_profiles({profile("exact", exact("AMD", 25, 1), 64),
                                              profile("isa", isa({CpuFeature::AVX2}), 16)})
                  .is_good());
  ASSERT_TRUE(registry.try_publish_calibrated(
                          {{"cal", params(gemm_key(), {{"algorithm.tile_k", 128}}), milan(), "digest-7", "1.0"}})
                  .is_good());
  ResolutionFilter defaults_only;
  defaults_only.portable_defaults_only = true;
  EXPECT_EQ(resolve(milan(), DataType::FLOAT, defaults_only).source, ResolutionSource::PORTABLE_DEFAULT);
  std::string name = "isa";
  ResolutionFilter named;
  named.profile_name = &name;
  EXPECT_EQ(resolve(milan(), DataType::FLOAT, named).profile_name, "isa");
  std::string digest = "digest-7";
  ResolutionFilter by_digest;
  by_digest.calibrated_digest = &digest;
  EXPECT_EQ(resolve(milan(), DataType::FLOAT, by_digest).profile_name, "cal");
  EXPECT_EQ(resolve(milan(1), DataType::FLOAT, by_digest).source, ResolutionSource::PORTABLE_DEFAULT);
}

TEST_F(RegistryTest, ExplainListsEveryRejectedCandidateWithItsReason) {
  ASSERT_TRUE(registry.try_register_profiles({profile("exact-milan", exact("AMD", 25, 1), 64),
                                              profile("exact-alder", exact("Intel", 6, 0x97), 48),
                                              profile("isa-avx2", isa({CpuFeature::AVX2}), 16)})
                  .is_good());
  Resolution r = resolve(milan(), DataType::FLOAT, {}, true);
  EXPECT_EQ(r.profile_name, "exact-milan");
  ASSERT_EQ(r.rejected.size(), 2u);
  EXPECT_EQ(r.rejected[0].profile, "exact-alder");
  EXPECT_EQ(r.rejected[0].reason, "vendor AMD != Intel");
  EXPECT_EQ(r.rejected[1].profile, "isa-avx2");
  EXPECT_EQ(r.rejected[1].reason, "outranked by exact-milan");
  const std::string text = r.to_string();
  EXPECT_NE(text.find("source: exact_processor"), std::string::npos);
  EXPECT_NE(text.find("algorithm.tile_k = 64"), std::string::npos);
  EXPECT_NE(text.find("rejected exact-alder (exact_processor): vendor AMD != Intel"), std::string::npos);
}

TEST_F(RegistryTest, KeysWithoutSchemaResolveToAnEmptyDefaultSet) {
  KernelTuningKey unknown = gemm_key();
  unknown.kernel = "Conv";
  Resolution r = registry.snapshot()->resolve(unknown, milan());
  EXPECT_EQ(r.source, ResolutionSource::PORTABLE_DEFAULT);
  EXPECT_TRUE(r.parameters.values.empty());
}

TEST_F(RegistryTest, AccessCountersAdvanceOnUse) {
  AccessCounts before = registry.access_counts();
  auto snapshot = registry.snapshot();
  (void)snapshot->resolve(gemm_key(), milan());
  AccessCounts after = registry.access_counts();
  EXPECT_EQ(after.snapshots, before.snapshots + 1);
  EXPECT_EQ(after.resolutions, before.resolutions + 1);
  EXPECT_EQ(after.snapshot_lookups, before.snapshot_lookups + 1);
}

// The indexed resolution must agree with the definition: the first matching
// profile in (specificity, priority, registration) order. Random selectors
// over a small processor space make buckets collide and overlap.
TEST_F(RegistryTest, IndexedResolutionAgreesWithABruteForceScan) {
  std::mt19937 random(20261129);
  const char* vendors[] = {"AMD", "Intel"};
  const char* uarchs[] = {"zen3", "zen4", "alder_lake"};
  const CpuFeature features[] = {CpuFeature::AVX2, CpuFeature::FMA, CpuFeature::AVX512F, CpuFeature::AVX_VNNI};
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };

  std::vector<KernelTuningProfile> registered;
  for (int i = 0; i < 400; ++i) {
    CpuSelector s;
    switch (pick(5)) {
      case 0: s = exact(vendors[pick(2)], 6 + 19 * static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(pick(4))); break;
      case 1: s = exact(vendors[pick(2)], 25, 0); s.models = {0, 1, 2}; s.models.resize(2 + pick(2)); break;
      case 2: s.microarchitecture = uarchs[pick(3)]; break;
      case 3: s.vendor = vendors[pick(2)]; s.family = 25; break;
      default: s.required_features.insert(features[pick(4)]); break;
    }
    if (pick(3) == 0) s.maximum_threads = 1 + static_cast<std::uint32_t>(pick(8));
    KernelTuningProfile p = profile('p' + std::to_string(i), s, 8 + i, pick(1000));
    if (registry.try_register_profiles({p}).is_good()) registered.push_back(p);
  }
  ASSERT_GT(registered.size(), 100u);
  auto snapshot = registry.snapshot();
  for (int trial = 0; trial < 300; ++trial) {
    platform::CpuFeatureSet set;
    for (CpuFeature f : features) {
      if (pick(2)) set.insert(f);
    }
    auto e = testing::processor(vendors[pick(2)], 6 + 19 * static_cast<std::uint32_t>(pick(2)),
                                static_cast<std::uint32_t>(pick(4)), uarchs[pick(3)], set,
                                1 + static_cast<std::uint32_t>(pick(8)));
    const KernelTuningProfile* expected = nullptr;
    for (const KernelTuningProfile& p : registered) {
      if (!matches(p.selector, e)) continue;
      if (expected == nullptr || specificity(p.selector) > specificity(expected->selector) ||
          (specificity(p.selector) == specificity(expected->selector) && p.priority > expected->priority)) {
        expected = &p;
      }
    }
    Resolution r = snapshot->resolve(gemm_key(), e);
    EXPECT_EQ(r.profile_name, expected ? expected->name : "") << "trial " << trial;
  }
}

}  // namespace
}  // namespace tunekit::tuning
