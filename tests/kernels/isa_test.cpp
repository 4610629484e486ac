// The instruction-set path of tunekit_cpu: which processors run which path,
// the choice made once, and forcing a path in tests.
#include "tunekit/cpu/isa.hpp"

#include <gtest/gtest.h>

namespace {

using tunekit::cpu::CpuIsa;
using tunekit::platform::CpuDescriptor;
using tunekit::platform::CpuFeature;

CpuDescriptor with(std::initializer_list<CpuFeature> features) {
  CpuDescriptor cpu;
  cpu.architecture = "x86_64";
  cpu.features = tunekit::platform::CpuFeatureSet(features);
  return cpu;
}

TEST(CpuIsa, NamesRoundTripAndUnknownNamesAreRefused) {
  for (CpuIsa isa : {CpuIsa::PORTABLE, CpuIsa::AVX2, CpuIsa::AVX512}) {
    EXPECT_EQ(tunekit::cpu::parse_cpu_isa(tunekit::cpu::to_string(isa)), isa);
  }
  EXPECT_FALSE(tunekit::cpu::parse_cpu_isa("avx512f").has_value());
  EXPECT_FALSE(tunekit::cpu::parse_cpu_isa("").has_value());
}

TEST(CpuIsa, Zen3LikeFeaturesRunAvx2ButNotAvx512) {
  const CpuDescriptor zen3 = with({CpuFeature::AVX, CpuFeature::AVX2, CpuFeature::FMA, CpuFeature::F16C});
  EXPECT_TRUE(tunekit::cpu::can_run(CpuIsa::AVX2, zen3));
  EXPECT_FALSE(tunekit::cpu::can_run(CpuIsa::AVX512, zen3));
  EXPECT_EQ(tunekit::cpu::best_isa(zen3), CpuIsa::AVX2);
}

TEST(CpuIsa, Avx512NeedsFBwVlAndDqBesideAvx2) {
  const CpuDescriptor zen4 = with({CpuFeature::AVX2, CpuFeature::FMA, CpuFeature::F16C, CpuFeature::AVX512F,
                                   CpuFeature::AVX512BW, CpuFeature::AVX512VL, CpuFeature::AVX512DQ});
  EXPECT_EQ(tunekit::cpu::best_isa(zen4), CpuIsa::AVX512);
  // Knights Landing: AVX-512 F without BW, VL, DQ.
  const CpuDescriptor knl = with({CpuFeature::AVX2, CpuFeature::FMA, CpuFeature::F16C, CpuFeature::AVX512F});
  EXPECT_EQ(tunekit::cpu::best_isa(knl), CpuIsa::AVX2);
  // AVX2 without FMA (an early VIA or a VM hiding it) runs the portable path.
  EXPECT_EQ(tunekit::cpu::best_isa(with({CpuFeature::AVX2, CpuFeature::F16C})), CpuIsa::PORTABLE);
  EXPECT_EQ(tunekit::cpu::best_isa(with({})), CpuIsa::PORTABLE);
}

TEST(CpuIsa, TheActivePathIsOneThisProcessorRuns) {
  const CpuDescriptor here = tunekit::platform::detect_cpu_descriptor();
  EXPECT_TRUE(tunekit::cpu::can_run(tunekit::cpu::active_isa(), here));
}

TEST(CpuIsa, ForcingAPathLastsAsLongAsTheGuardAndRefusesWhatThisProcessorLacks) {
  const CpuDescriptor here = tunekit::platform::detect_cpu_descriptor();
  const CpuIsa before = tunekit::cpu::active_isa();
  {
    auto forced = tunekit::cpu::ScopedIsa::force(CpuIsa::PORTABLE);
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(tunekit::cpu::active_isa(), CpuIsa::PORTABLE);
    {
      auto moved = std::move(*forced);  // the guard moves; the path is restored once
      EXPECT_EQ(tunekit::cpu::active_isa(), CpuIsa::PORTABLE);
    }
    EXPECT_EQ(tunekit::cpu::active_isa(), before);
  }
  EXPECT_EQ(tunekit::cpu::active_isa(), before);
  for (CpuIsa isa : {CpuIsa::AVX2, CpuIsa::AVX512}) {
    auto forced = tunekit::cpu::ScopedIsa::force(isa);
    EXPECT_EQ(forced.ok(), tunekit::cpu::can_run(isa, here)) << tunekit::cpu::to_string(isa);
    if (!forced.ok()) {
      EXPECT_EQ(forced.error().code(), tunekit::ErrorCode::NOT_SUPPORTED);
      EXPECT_EQ(tunekit::cpu::active_isa(), before);
    }
  }
}

}  // namespace
